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
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * An object opened on the remote store: the version the opening GET saw, pinned by its version id when the
 * remote bucket is versioned, else by its ETag ({@code If-Match}). The object is opened with one GET of the
 * whole object (no HEAD first: its headers are HEAD's), whose body is kept as the <em>held</em> stream: a read
 * or stream that starts where it stands uses it (so a whole-object GET, and a sequence of chunk reads from 0,
 * cost that one remote request); any other read is its own ranged, pinned GET. A held stream that is not read
 * to its end is aborted, never drained (one dropped connection instead of the rest of the object).
 * Every read goes straight into the caller's segment in chunks (or is handed out as the response stream), so a
 * read never mixes versions.
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
    /** The opening GET's body, positioned at {@link #heldAt}; null once taken, used up or closed. Guarded by this. */
    private ResponseInputStream<GetObjectResponse> held;
    private long heldAt;

    /** @param opened the body of the whole-object GET {@code info} was read from (positioned at 0), or null */
    RemoteContent(S3Client s3, String remoteBucket, ObjectInfo info, String versionId, PartLayouts layouts,
            ResponseInputStream<GetObjectResponse> opened) {
        this.s3 = s3;
        this.remoteBucket = remoteBucket;
        this.info = info;
        this.versionId = versionId;
        this.layouts = layouts;
        this.held = opened;
        if (opened != null && info.size() == 0) {
            release(opened, true);
            this.held = null;
        }
    }

    /** The held stream if it stands at {@code offset} (taken: the caller owns it), else null. */
    private synchronized ResponseInputStream<GetObjectResponse> takeHeld(long offset) {
        if (held == null || heldAt != offset) {
            return null;
        }
        ResponseInputStream<GetObjectResponse> taken = held;
        held = null;
        return taken;
    }

    /** Gives a taken held stream back, now at {@code at}; closes it when it reached the end or the content closed. */
    private void putBack(ResponseInputStream<GetObjectResponse> stream, long at) {
        boolean keep;
        synchronized (this) {
            keep = !closed && at < info.size() && held == null;
            if (keep) {
                held = stream;
                heldAt = at;
            }
        }
        if (!keep) {
            release(stream, at == info.size());
        }
    }

    /** Closes a response body: read to its end, a plain close; else aborted (a drain would read the rest). */
    static void release(ResponseInputStream<?> stream, boolean atEnd) {
        if (!atEnd) {
            stream.abort();
        }
        try {
            stream.close();
        } catch (IOException | RuntimeException ignored) {
            // aborted or already failed: nothing more to give back
        }
    }

    private boolean closed; // guarded by this

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
        ResponseInputStream<GetObjectResponse> kept = takeHeld(offset);
        if (kept != null) {
            long n;
            try {
                n = SegmentStreams.fillUpTo(kept, destination.asSlice(0, length));
            } catch (IOException e) {
                release(kept, false);
                throw new StoreException(StoreError.INTERNAL_ERROR, "reading " + info.key() + " from the remote store: " + e, e);
            }
            if (n != length) {
                release(kept, false);
                throw new StoreException(StoreError.INTERNAL_ERROR,
                        "the remote store sent " + n + " of " + length + " bytes of " + info.key());
            }
            putBack(kept, offset + n);
            return n;
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
        if (length == 0) {
            return InputStream.nullInputStream();
        }
        ResponseInputStream<GetObjectResponse> kept = takeHeld(offset);
        return kept == null ? get(offset, length) : new HeldSlice(kept, offset, length, info.size());
    }

    /** {@code length} bytes of a taken held stream; closing it before the object's end aborts the remote GET. */
    private static final class HeldSlice extends java.io.FilterInputStream {
        private final ResponseInputStream<GetObjectResponse> body;
        private final long objectSize;
        private long at;
        private long left;

        HeldSlice(ResponseInputStream<GetObjectResponse> body, long offset, long length, long objectSize) {
            super(body);
            this.body = body;
            this.at = offset;
            this.left = length;
            this.objectSize = objectSize;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return len == 0 ? 0 : -1;
            }
            int n = body.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
                at += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = body.skip(Math.min(n, left));
            left -= skipped;
            at += skipped;
            return skipped;
        }

        @Override
        public void close() {
            release(body, at == objectSize);
        }
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
        ResponseInputStream<GetObjectResponse> left;
        synchronized (this) {
            closed = true;
            left = held;
            held = null;
        }
        if (left != null) {
            release(left, false);
        }
    }
}
