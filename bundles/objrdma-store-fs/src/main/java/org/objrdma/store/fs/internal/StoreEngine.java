package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.DeleteResult;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;
import org.objrdma.api.store.WriteCondition;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.wire.UserCredentials;

/**
 * The S3 rules of the embedded stores over a {@link Backend}: names and limits, bucket ownership, the
 * in-memory index (sorted by UTF-8 bytes) that listing reads, the commit order (bytes sealed outside any
 * lock, then renamed and indexed under the bucket's monitor). Multipart uploads are {@link MultipartUploads}.
 */
public final class StoreEngine implements EmbeddedStore {
    private final String name;
    private final Backend backend;
    private final UserCredentials credentials;
    private final Clock clock;
    private final long maxObjectSize;
    private final Map<String, BucketState> buckets = new ConcurrentHashMap<>();
    private final Object bucketLifecycle = new Object();
    private final MultipartUploads multipart;
    private volatile boolean closed;

    StoreEngine(String name, Backend backend, UserCredentials credentials, Clock clock, long maxObjectSize,
            long minPartSize) throws IOException {
        this.name = name;
        this.backend = backend;
        this.credentials = credentials;
        this.clock = clock;
        this.maxObjectSize = maxObjectSize;
        this.multipart = new MultipartUploads(this, backend, clock, maxObjectSize, minPartSize);
        for (Backend.LoadedBucket b : backend.load().buckets()) {
            BucketState state = new BucketState(b.info());
            for (ObjectInfo o : b.objects()) {
                state.objects.put(Utf8Key.of(o.key()), summary(o));
            }
            for (Backend.LoadedUpload u : b.uploads()) {
                UploadState upload = new UploadState(u.upload());
                u.parts().forEach(p -> upload.parts.put(p.partNumber(), p));
                state.uploads.put(u.upload().info().uploadId(), upload);
            }
            buckets.put(b.info().name(), state);
        }
    }

    /** The heap variant; {@code minPartSize} below S3's 5 MiB only for tests that must stay small. */
    public static StoreEngine inMemory(Map<String, String> credentials, long maxObjectSize, long minPartSize) {
        try {
            return new StoreEngine("memory", new MemoryBackend(), UserCredentials.of(credentials), Clock.systemUTC(),
                    Math.min(maxObjectSize, MemoryBackend.MAX_BLOB), minPartSize);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /** The file variant on {@code root}. */
    public static StoreEngine filesystem(Path root, Map<String, String> credentials, long maxObjectSize, boolean fsync,
            long minPartSize) throws IOException {
        FsBackend backend = new FsBackend(root, fsync);
        try {
            return new StoreEngine("fs:" + backend.root(), backend, UserCredentials.of(credentials), Clock.systemUTC(),
                    maxObjectSize, minPartSize);
        } catch (IOException | RuntimeException e) {
            backend.close();
            throw e;
        }
    }

    static ObjectSummary summary(ObjectInfo o) {
        return new ObjectSummary(o.key(), o.size(), o.etag(), o.lastModified());
    }

    @Override
    public String name() {
        return name;
    }

    /** Closes the backend (the file store releases its root); idempotent; later calls fail. */
    @Override
    public void close() {
        closed = true;
        try {
            backend.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- principals

    @Override
    public Optional<String> secretKey(String accessKeyId) {
        return credentials.secret(accessKeyId);
    }

    /** A known key may do anything on its own buckets and on buckets that do not exist (to learn so). */
    @Override
    public boolean isAuthorized(String accessKeyId, StoreAction action, String bucket, String key) {
        if (credentials.secret(accessKeyId).isEmpty()) {
            return false;
        }
        if (action.level() == StoreAction.Level.SERVICE || action == StoreAction.CREATE_BUCKET || bucket == null) {
            return true;
        }
        BucketState state = buckets.get(bucket);
        return state == null || state.info.owner().equals(accessKeyId);
    }

    // ---- buckets

    @Override
    public BucketInfo createBucket(String owner, String bucket) throws StoreException {
        StoreLimits.validateBucketName(bucket);
        synchronized (bucketLifecycle) {
            if (closed) {
                throw new StoreException(StoreError.INTERNAL_ERROR, "the store " + name + " is closed");
            }
            BucketState existing = buckets.get(bucket);
            if (existing != null) {
                throw existing.info.owner().equals(owner)
                        ? new StoreException(StoreError.BUCKET_ALREADY_OWNED_BY_YOU, "you already own bucket " + bucket)
                        : new StoreException(StoreError.BUCKET_ALREADY_EXISTS, "bucket " + bucket + " is taken");
            }
            BucketInfo info = new BucketInfo(bucket, clock.instant(), owner);
            try {
                backend.createBucket(info);
            } catch (IOException e) {
                throw internal("creating bucket " + bucket, e);
            }
            buckets.put(bucket, new BucketState(info));
            return info;
        }
    }

    @Override
    public boolean supportsAcls() {
        return true;
    }

    @Override
    public BucketInfo setBucketAcl(String bucket, CannedAcl acl) throws StoreException {
        java.util.Objects.requireNonNull(acl, "acl");
        BucketState state = bucket(bucket);
        synchronized (state) {
            if (state.deleted) {
                throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
            }
            BucketInfo updated = state.info.withAcl(acl);
            try {
                backend.updateBucket(updated);
            } catch (IOException e) {
                throw internal("setting the ACL of bucket " + bucket, e);
            }
            state.info = updated;
            return updated;
        }
    }

    @Override
    public BucketInfo headBucket(String bucket) throws StoreException {
        return bucket(bucket).info;
    }

    @Override
    public List<BucketInfo> listBuckets(String owner) {
        return buckets.values().stream().map(b -> b.info).filter(b -> b.owner().equals(owner))
                .sorted((a, b) -> a.name().compareTo(b.name())).toList();
    }

    @Override
    public void deleteBucket(String bucket) throws StoreException {
        synchronized (bucketLifecycle) {
            BucketState state = bucket(bucket);
            synchronized (state) {
                if (!state.objects.isEmpty() || !state.uploads.isEmpty()) {
                    throw new StoreException(StoreError.BUCKET_NOT_EMPTY, "bucket " + bucket
                            + " holds " + state.objects.size() + " objects and " + state.uploads.size() + " uploads");
                }
                try {
                    backend.deleteBucket(bucket);
                } catch (IOException e) {
                    throw internal("deleting bucket " + bucket, e);
                }
                state.deleted = true;
                buckets.remove(bucket);
            }
        }
    }

    BucketState bucket(String bucket) throws StoreException {
        if (closed) {
            throw new StoreException(StoreError.INTERNAL_ERROR, "the store " + name + " is closed");
        }
        BucketState state = bucket == null ? null : buckets.get(bucket);
        if (state == null) {
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
        return state;
    }

    // ---- reading

    @Override
    public ObjectContent open(String bucket, String key, Conditions conditions) throws StoreException {
        BucketState state = bucket(bucket);
        StoreLimits.validateKey(key);
        Backend.BlobReader reader = null;
        if (state.objects.containsKey(Utf8Key.of(key))) {
            try {
                reader = backend.openObject(bucket, key);
            } catch (IOException e) {
                throw internal("opening " + bucket + "/" + key, e);
            }
        }
        if (reader == null) {
            throw new StoreException(StoreError.NO_SUCH_KEY, "the key " + key + " does not exist");
        }
        try {
            conditions.check(reader.info().etag(), reader.info().lastModified());
        } catch (StoreException e) {
            reader.close();
            throw e;
        }
        return new EngineContent(reader);
    }

    // ---- writing

    /** Conditions are checked under the bucket's monitor in {@link #commit}, atomically with the rename. */
    @Override
    public boolean supportsConditionalWrites() {
        return true;
    }

    @Override
    public PutResult put(String bucket, String key, MemorySegment source, PutOptions options) throws StoreException {
        BucketState state = checkWrite(bucket, key, options.attributes());
        try (Backend.Staging staged = stage()) {
            Digests d = Ingest.fromSegment(source, maxObjectSize, options.checksums(), options.verifier(), staged);
            return commit(state, key, staged, d.length(), options.attributes(), d.checksums(),
                    PartLayout.single(d.length()), 0, d.md5Hex(), options.condition());
        }
    }

    @Override
    public PutResult put(String bucket, String key, InputStream body, long length, PutOptions options)
            throws StoreException, IOException {
        BucketState state = checkWrite(bucket, key, options.attributes());
        try (Backend.Staging staged = stage()) {
            Digests d = Ingest.fromStream(body, length, maxObjectSize, options.checksums(), options.verifier(), staged);
            return commit(state, key, staged, d.length(), options.attributes(), d.checksums(),
                    PartLayout.single(d.length()), 0, d.md5Hex(), options.condition());
        }
    }

    BucketState checkWrite(String bucket, String key, ObjectAttributes attributes) throws StoreException {
        BucketState state = bucket(bucket);
        StoreLimits.validateKey(key);
        StoreLimits.validateUserMetadata(attributes.userMetadata());
        return state;
    }

    Backend.Staging stage() throws StoreException {
        try {
            return backend.stage();
        } catch (IOException e) {
            throw internal("staging a write", e);
        }
    }

    /** Seals the staged bytes with their record, then renames and indexes them under the bucket's monitor. */
    PutResult commit(BucketState state, String key, Backend.Staging staged, long size, ObjectAttributes attributes,
            Map<ChecksumAlgorithm, String> checksums, PartLayout parts, int partsCount, String etag)
            throws StoreException {
        return commit(state, key, staged, size, attributes, checksums, parts, partsCount, etag, WriteCondition.NONE);
    }

    /**
     * As above, with S3's conditional write checked under the bucket's monitor, the one every commit, delete
     * and rename of the bucket's keys takes: the object it is checked against is the one the commit replaces.
     */
    PutResult commit(BucketState state, String key, Backend.Staging staged, long size, ObjectAttributes attributes,
            Map<ChecksumAlgorithm, String> checksums, PartLayout parts, int partsCount, String etag,
            WriteCondition condition) throws StoreException {
        ObjectInfo info = new ObjectInfo(key, size, etag, clock.instant(), attributes, checksums, partsCount);
        try {
            staged.sealObject(info, parts);
            synchronized (state) {
                if (state.deleted) {
                    throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + state.name() + " was deleted");
                }
                if (!condition.isNone()) {
                    ObjectSummary current = state.objects.get(Utf8Key.of(key));
                    condition.check(current == null ? null : current.etag());
                }
                backend.commitObject(state.name(), key, staged);
                state.objects.put(Utf8Key.of(key), summary(info));
            }
        } catch (IOException e) {
            throw internal("committing " + state.name() + "/" + key, e);
        }
        return new PutResult(info.etag(), info.size(), info.lastModified(), info.checksums());
    }

    @Override
    public void delete(String bucket, String key) throws StoreException {
        BucketState state = bucket(bucket);
        StoreLimits.validateKey(key);
        synchronized (state) {
            if (state.objects.remove(Utf8Key.of(key)) != null) {
                try {
                    backend.deleteObject(bucket, key);
                } catch (IOException e) {
                    throw internal("deleting " + bucket + "/" + key, e);
                }
            }
        }
    }

    @Override
    public List<DeleteResult> deleteMany(String bucket, List<String> keys) throws StoreException {
        bucket(bucket);
        if (keys.size() > StoreLimits.MAX_DELETE_KEYS) {
            throw new StoreException(StoreError.INVALID_ARGUMENT, keys.size() + " keys named, at most "
                    + StoreLimits.MAX_DELETE_KEYS + " are allowed");
        }
        List<DeleteResult> results = new ArrayList<>(keys.size());
        for (String key : keys) {
            try {
                delete(bucket, key);
                results.add(DeleteResult.deleted(key));
            } catch (StoreException e) {
                results.add(DeleteResult.failed(key, e));
            }
        }
        return results;
    }

    @Override
    public PutResult copy(String sourceBucket, String sourceKey, Conditions sourceConditions, String bucket, String key,
            ObjectAttributes replacement) throws StoreException {
        checkWrite(bucket, key, replacement == null ? ObjectAttributes.NONE : replacement);
        try (ObjectContent source = open(sourceBucket, sourceKey, Conditions.NONE)) {
            ObjectInfo info = source.info();
            sourceConditions.checkCopySource(info.etag(), info.lastModified());
            if (replacement == null && sourceBucket.equals(bucket) && sourceKey.equals(key)) {
                throw new StoreException(StoreError.INVALID_REQUEST, "this copy request is illegal because it tries to "
                        + "copy an object to itself without changing the object's metadata");
            }
            // the ACL is never copied: S3 gives a copy its own (private unless the replacement says otherwise)
            PutOptions options = new PutOptions(replacement == null ? info.attributes().withAcl(CannedAcl.PRIVATE)
                    : replacement,
                    info.checksums().keySet(), CommitVerifier.ACCEPT_ALL);
            try (InputStream bytes = source.stream()) {
                return put(bucket, key, bytes, info.size(), options);
            }
        } catch (IOException e) {
            throw internal("copying " + sourceBucket + "/" + sourceKey, e);
        }
    }

    // ---- listing

    @Override
    public ListPage list(String bucket, ListRequest request) throws StoreException {
        return ObjectListing.page(bucket(bucket).objects, request);
    }

    // ---- multipart

    @Override
    public UploadInfo createMultipartUpload(String bucket, String key, ObjectAttributes attributes,
            ChecksumAlgorithm checksumAlgorithm) throws StoreException {
        return multipart.create(checkWrite(bucket, key, attributes), key, attributes, checksumAlgorithm);
    }

    @Override
    public PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, MemorySegment source,
            PutOptions options) throws StoreException {
        try {
            return multipart.uploadPart(bucket(bucket), key, uploadId, partNumber, options,
                    (max, checksums, staged) -> Ingest.fromSegment(source, max, checksums, options.verifier(), staged));
        } catch (IOException fromNoBody) {
            throw internal("uploading part " + partNumber + " of " + key, fromNoBody);
        }
    }

    @Override
    public PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, InputStream body,
            long length, PutOptions options) throws StoreException, IOException {
        return multipart.uploadPart(bucket(bucket), key, uploadId, partNumber, options,
                (max, checksums, staged) -> Ingest.fromStream(body, length, max, checksums, options.verifier(), staged));
    }

    @Override
    public PartsPage listParts(String bucket, String key, String uploadId, int partNumberMarker, int maxParts)
            throws StoreException {
        return multipart.listParts(bucket(bucket), key, uploadId, partNumberMarker, maxParts);
    }

    @Override
    public PutResult completeMultipartUpload(String bucket, String key, String uploadId, List<CompletedPart> parts)
            throws StoreException {
        return multipart.complete(bucket(bucket), key, uploadId, parts);
    }

    @Override
    public void abortMultipartUpload(String bucket, String key, String uploadId) throws StoreException {
        multipart.abort(bucket(bucket), key, uploadId);
    }

    @Override
    public UploadsPage listMultipartUploads(String bucket, ListUploadsRequest request) throws StoreException {
        return multipart.list(bucket(bucket), request);
    }

    static StoreException internal(String what, IOException e) {
        return new StoreException(StoreError.INTERNAL_ERROR, what + " failed: " + e, e);
    }
}
