package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.CompletionRecords;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;

/** The multipart half of {@link StoreEngine}: uploads and parts in the bucket index, completion, listing. */
final class MultipartUploads {
    private static final Comparator<UploadInfo> ORDER = Comparator
            .comparing((UploadInfo u) -> Utf8Key.of(u.key()))
            .thenComparing(UploadInfo::initiated)
            .thenComparing(UploadInfo::uploadId);

    /** Bytes into a staging area with the given size limit and checksums; the engine supplies the source. */
    @FunctionalInterface
    interface PartSource {
        Digests ingest(long maxBytes, Set<ChecksumAlgorithm> checksums, Backend.Staging staged)
                throws StoreException, IOException;
    }

    private final StoreEngine engine;
    private final Backend backend;
    private final Clock clock;
    private final long maxObjectSize;
    private final long minPartSize;
    private final SecureRandom random = new SecureRandom();
    private final CompletionRecords completions;

    MultipartUploads(StoreEngine engine, Backend backend, Clock clock, long maxObjectSize, long minPartSize) {
        this.engine = engine;
        this.backend = backend;
        this.clock = clock;
        this.maxObjectSize = maxObjectSize;
        this.minPartSize = minPartSize;
        this.completions = new CompletionRecords(clock);
    }

    UploadInfo create(BucketState bucket, String key, ObjectAttributes attributes, ChecksumAlgorithm algorithm)
            throws StoreException {
        byte[] id = new byte[16];
        random.nextBytes(id);
        UploadInfo info = new UploadInfo(key, HexFormat.of().formatHex(id), clock.instant(), algorithm);
        UploadRecord record = new UploadRecord(info, attributes);
        synchronized (bucket) {
            if (bucket.deleted) {
                throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket.name() + " was deleted");
            }
            try {
                backend.createUpload(bucket.name(), record);
            } catch (IOException e) {
                throw StoreEngine.internal("creating an upload for " + key, e);
            }
            bucket.uploads.put(info.uploadId(), new UploadState(record));
        }
        return info;
    }

    private static UploadState upload(BucketState bucket, String key, String uploadId) throws StoreException {
        UploadState upload = uploadId == null ? null : bucket.uploads.get(uploadId);
        if (upload == null || !upload.key().equals(key)) {
            throw new StoreException(StoreError.NO_SUCH_UPLOAD, "the upload " + uploadId + " does not exist for key "
                    + key + "; it may have been aborted or completed");
        }
        return upload;
    }

    PartInfo uploadPart(BucketState bucket, String key, String uploadId, int partNumber, PutOptions options,
            PartSource source) throws StoreException, IOException {
        UploadState upload = upload(bucket, key, uploadId);
        StoreLimits.validatePartNumber(partNumber);
        Set<ChecksumAlgorithm> checksums = EnumSet.noneOf(ChecksumAlgorithm.class);
        checksums.addAll(options.checksums());
        if (upload.record.info().checksumAlgorithm() != null) {
            checksums.add(upload.record.info().checksumAlgorithm());
        }
        try (Backend.Staging staged = engine.stage()) {
            Digests d = source.ingest(Math.min(StoreLimits.MAX_PART_SIZE, maxObjectSize), checksums, staged);
            PartInfo part = new PartInfo(partNumber, d.md5Hex(), d.length(), clock.instant(), d.checksums());
            try {
                staged.sealPart(part);
                synchronized (upload) {
                    if (upload.finished) {
                        throw noLongerOpen(uploadId);
                    }
                    backend.commitPart(bucket.name(), uploadId, partNumber, staged);
                    upload.parts.put(partNumber, part);
                }
            } catch (IOException e) {
                throw StoreEngine.internal("committing part " + partNumber + " of " + key, e);
            }
            return part;
        }
    }

    PutResult complete(BucketState bucket, String key, String uploadId, List<CompletedPart> requested)
            throws StoreException {
        UploadState upload;
        try {
            upload = upload(bucket, key, uploadId);
        } catch (StoreException e) {
            return repeated(bucket, key, uploadId, requested, e);
        }
        synchronized (upload) {
            if (upload.finished) {
                return repeated(bucket, key, uploadId, requested, noLongerOpen(uploadId));
            }
            List<PartInfo> parts = MultipartRules.select(requested, upload.parts, minPartSize, maxObjectSize);
            PutResult result;
            try (Backend.Staging staged = engine.stage()) {
                long total = 0;
                for (PartInfo p : parts) {
                    backend.appendPart(bucket.name(), uploadId, p, staged);
                    total += p.size();
                }
                result = engine.commit(bucket, key, staged, total, upload.record.attributes(),
                        MultipartRules.checksums(upload.record.info().checksumAlgorithm(), parts),
                        PartLayout.of(parts), parts.size(),
                        MultipartRules.etag(parts));
            } catch (IOException e) {
                throw StoreEngine.internal("assembling " + key, e);
            }
            completions.add(bucket.name(), key, uploadId, requested, result);
            finish(bucket, upload, uploadId);
            return result;
        }
    }

    /** A completion repeated (an SDK retrying): the first answer, or {@code otherwise} if none is remembered. */
    private PutResult repeated(BucketState bucket, String key, String uploadId, List<CompletedPart> requested,
            StoreException otherwise) throws StoreException {
        var record = completions.find(bucket.name(), key, uploadId);
        if (record.isEmpty()) {
            throw otherwise;
        }
        return record.get().repeat(requested);
    }

    void abort(BucketState bucket, String key, String uploadId) throws StoreException {
        UploadState upload = upload(bucket, key, uploadId);
        synchronized (upload) {
            if (upload.finished) {
                throw noLongerOpen(uploadId);
            }
            finish(bucket, upload, uploadId);
        }
    }

    /** Called holding the upload's monitor. */
    private void finish(BucketState bucket, UploadState upload, String uploadId) throws StoreException {
        upload.finished = true;
        bucket.uploads.remove(uploadId);
        try {
            backend.deleteUpload(bucket.name(), uploadId);
        } catch (IOException e) {
            throw StoreEngine.internal("removing upload " + uploadId, e);
        }
    }

    private static StoreException noLongerOpen(String uploadId) {
        return new StoreException(StoreError.NO_SUCH_UPLOAD, "the upload " + uploadId + " was completed or aborted");
    }

    PartsPage listParts(BucketState bucket, String key, String uploadId, int partNumberMarker, int maxParts)
            throws StoreException {
        UploadState upload = upload(bucket, key, uploadId);
        if (partNumberMarker < 0 || maxParts < 0) {
            throw new StoreException(StoreError.INVALID_ARGUMENT, "part-number-marker and max-parts must not be negative");
        }
        int max = Math.min(maxParts, StoreLimits.MAX_KEYS);
        List<PartInfo> page = new ArrayList<>();
        boolean truncated = false;
        for (PartInfo p : upload.parts.tailMap(partNumberMarker, false).values()) {
            if (page.size() == max) {
                truncated = true;
                break;
            }
            page.add(p);
        }
        truncated &= !page.isEmpty();
        return new PartsPage(upload.record.info(), page, truncated, truncated ? page.getLast().partNumber() : 0);
    }

    UploadsPage list(BucketState bucket, ListUploadsRequest request) {
        Utf8Key prefix = Utf8Key.of(request.prefix());
        List<UploadInfo> all = bucket.uploads.values().stream().map(u -> u.record.info())
                .filter(u -> Utf8Key.of(u.key()).startsWith(prefix)).sorted(ORDER).toList();
        int start = 0;
        if (request.keyMarker() != null) {
            Utf8Key marker = Utf8Key.of(request.keyMarker());
            start = all.size();
            for (int i = 0; i < all.size(); i++) {
                UploadInfo u = all.get(i);
                int c = Utf8Key.of(u.key()).compareTo(marker);
                if (c > 0) {
                    start = i;
                    break;
                }
                if (c == 0 && u.uploadId().equals(request.uploadIdMarker())) {
                    start = i + 1;
                    break;
                }
            }
        }
        int end = Math.min(all.size(), start + request.maxUploads());
        List<UploadInfo> page = all.subList(start, end);
        boolean truncated = end < all.size() && !page.isEmpty();
        return new UploadsPage(page, truncated, truncated ? page.getLast().key() : null,
                truncated ? page.getLast().uploadId() : null);
    }
}
