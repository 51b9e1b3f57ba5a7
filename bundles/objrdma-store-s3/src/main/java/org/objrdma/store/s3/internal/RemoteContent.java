package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * An object opened on the remote store: the version HEAD saw, pinned by its version id when the remote
 * bucket is versioned, else by its ETag ({@code If-Match}). Every read is one ranged GET read straight into
 * the caller's segment in chunks (or handed out as the response stream), so a read never mixes versions.
 * An unversioned bucket keeps no old version: a read after the key was overwritten or deleted fails
 * (INTERNAL_ERROR naming the cause) instead of returning other bytes.
 */
final class RemoteContent implements ObjectContent {
    private final S3Client s3;
    private final String remoteBucket;
    private final ObjectInfo info;
    private final String versionId;
    private final PartLayouts layouts;
    private long[] partSizes; // read from the layout record at the first part() of a multipart object

    RemoteContent(S3Client s3, String remoteBucket, ObjectInfo info, String versionId, PartLayouts layouts) {
        this.s3 = s3;
        this.remoteBucket = remoteBucket;
        this.info = info;
        this.versionId = versionId;
        this.layouts = layouts;
    }

    /**
     * A multipart object's part from the layout the adapter recorded when it completed this version
     * ({@link PartLayouts}); single-put objects and the refusals are the SPI's default.
     *
     * @throws StoreException NOT_IMPLEMENTED for a multipart object completed by another client directly on the
     *         remote (no layout recorded), INTERNAL_ERROR for a record that does not match the ETag's part count
     */
    @Override
    public PartRange part(int partNumber) throws StoreException {
        int count = info.partsCount();
        if (count == 0 || partNumber < 1 || partNumber > count || partNumber > StoreLimits.MAX_PART_NUMBER) {
            return ObjectContent.super.part(partNumber);
        }
        long[] sizes = partSizes();
        long offset = 0;
        for (int i = 0; i < partNumber - 1; i++) {
            offset += sizes[i];
        }
        return new PartRange(partNumber, count, offset, sizes[partNumber - 1]);
    }

    private synchronized long[] partSizes() throws StoreException {
        if (partSizes == null) {
            long[] found = layouts.find(remoteBucket, info.key(), info.etag()).orElseThrow(() -> new StoreException(
                    StoreError.NOT_IMPLEMENTED, "no part layout is recorded for " + info.key() + " (completed outside"
                            + " objrdma, directly on the remote store)"));
            long total = 0;
            for (long n : found) {
                total += n;
            }
            if (found.length != info.partsCount() || total != info.size()) {
                throw new StoreException(StoreError.INTERNAL_ERROR, "the part layout of " + info.key() + " has "
                        + found.length + " parts of " + total + " bytes, the object " + info.partsCount() + " parts of "
                        + info.size());
            }
            partSizes = found;
        }
        return partSizes;
    }

    @Override
    public ObjectInfo info() {
        return info;
    }

    @Override
    public long read(long offset, MemorySegment destination) throws StoreException {
        long size = info.size();
        if (offset < 0 || (size == 0 ? offset > 0 : offset >= size)) {
            throw new StoreException(StoreError.INVALID_RANGE,
                    "offset " + offset + " is outside the object of " + size + " bytes");
        }
        long length = Math.min(destination.byteSize(), size - offset);
        if (length == 0) {
            return 0;
        }
        try (InputStream in = get(offset, length)) {
            long n = SegmentStreams.fillUpTo(in, destination.asSlice(0, length));
            if (n != length) {
                throw new StoreException(StoreError.INTERNAL_ERROR,
                        "the remote store sent " + n + " of " + length + " bytes of " + info.key());
            }
            return n;
        } catch (IOException e) {
            throw new StoreException(StoreError.INTERNAL_ERROR, "reading " + info.key() + " from the remote store: " + e, e);
        }
    }

    @Override
    public InputStream stream(long offset, long length) throws StoreException {
        if (offset < 0 || length < 0 || offset + length > info.size()) {
            throw new StoreException(StoreError.INVALID_RANGE, "the range " + offset + "+" + length
                    + " is not inside the object of " + info.size() + " bytes");
        }
        return length == 0 ? InputStream.nullInputStream() : get(offset, length);
    }

    private InputStream get(long offset, long length) throws StoreException {
        GetObjectRequest.Builder request = GetObjectRequest.builder().bucket(remoteBucket).key(info.key())
                .range("bytes=" + offset + "-" + (offset + length - 1));
        if (versionId != null) {
            request.versionId(versionId);
        } else {
            request.ifMatch("\"" + info.etag() + "\"");
        }
        try {
            return s3.getObject(request.build());
        } catch (SdkException e) {
            int status = RemoteErrors.status(e);
            if (status == 412 || status == 404) {
                throw new StoreException(StoreError.INTERNAL_ERROR, "the object " + info.key()
                        + " was overwritten or deleted after it was opened, and the remote store keeps no old"
                        + " versions (remote status " + status + ")", e);
            }
            throw RemoteErrors.map(e, StoreError.NO_SUCH_KEY, "GET " + info.key());
        }
    }

    @Override
    public void close() {
        // nothing held between reads: each read is its own request
    }
}
