package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;

/**
 * Objects and parts as byte arrays on the heap; nothing survives the instance. Each committed version is
 * an immutable array, so a reader keeps the version it opened.
 */
final class MemoryBackend implements Backend {
    /** Largest array the JVM reliably allocates. */
    static final long MAX_BLOB = Integer.MAX_VALUE - 16;

    private record Blob(byte[] bytes, ObjectInfo object, PartLayout parts, PartInfo part) {
    }

    private final Map<String, Blob> objects = new ConcurrentHashMap<>();
    private final Map<String, Blob> parts = new ConcurrentHashMap<>();

    private static String objectId(String bucket, String key) {
        return bucket + "/" + key;
    }

    private static String partId(String bucket, String uploadId, int partNumber) {
        return bucket + "/" + uploadId + "/" + partNumber;
    }

    @Override
    public Loaded load() {
        return new Loaded(List.of());
    }

    @Override
    public void createBucket(BucketInfo bucket) {
        // the engine's index is the whole record of a bucket here
    }

    @Override
    public void updateBucket(BucketInfo bucket) {
        // the engine's index is the whole record of a bucket here
    }

    @Override
    public void deleteBucket(String bucket) {
        objects.keySet().removeIf(id -> id.startsWith(bucket + "/"));
    }

    @Override
    public Staging stage() {
        return new MemoryStaging();
    }

    @Override
    public void commitObject(String bucket, String key, Staging sealed) {
        objects.put(objectId(bucket, key), ((MemoryStaging) sealed).blob);
    }

    @Override
    public void deleteObject(String bucket, String key) {
        objects.remove(objectId(bucket, key));
    }

    @Override
    public BlobReader openObject(String bucket, String key) {
        Blob blob = objects.get(objectId(bucket, key));
        return blob == null ? null : new MemoryReader(blob);
    }

    @Override
    public void createUpload(String bucket, UploadRecord upload) {
        // recorded in the engine's index only
    }

    @Override
    public void commitPart(String bucket, String uploadId, int partNumber, Staging sealed) {
        parts.put(partId(bucket, uploadId, partNumber), ((MemoryStaging) sealed).blob);
    }

    @Override
    public void appendPart(String bucket, String uploadId, PartInfo part, Staging target) throws IOException {
        Blob blob = parts.get(partId(bucket, uploadId, part.partNumber()));
        if (blob == null) {
            throw new IOException("part " + part.partNumber() + " of upload " + uploadId + " is missing");
        }
        target.write(ByteBuffer.wrap(blob.bytes));
    }

    @Override
    public void deleteUpload(String bucket, String uploadId) {
        parts.keySet().removeIf(id -> id.startsWith(bucket + "/" + uploadId + "/"));
    }

    @Override
    public void close() {
        objects.clear();
        parts.clear();
    }

    private static final class MemoryStaging implements Staging {
        private byte[] bytes = new byte[256];
        private int length;
        private Blob blob;

        @Override
        public void write(ByteBuffer src) throws IOException {
            int n = src.remaining();
            if (length + (long) n > MAX_BLOB) {
                throw new IOException("the in-memory store holds at most " + MAX_BLOB + " bytes per object");
            }
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(MAX_BLOB, Math.max(length + (long) n, bytes.length * 2L)));
            }
            src.get(bytes, length, n);
            length += n;
        }

        @Override
        public void sealObject(ObjectInfo info, PartLayout parts) {
            blob = new Blob(Arrays.copyOf(bytes, length), info, parts, null);
        }

        @Override
        public void sealPart(PartInfo info) {
            blob = new Blob(Arrays.copyOf(bytes, length), null, null, info);
        }

        @Override
        public void close() {
            bytes = null;
        }
    }

    private static final class MemoryReader implements BlobReader {
        private final Blob blob;

        MemoryReader(Blob blob) {
            this.blob = blob;
        }

        @Override
        public ObjectInfo info() {
            return blob.object;
        }

        @Override
        public PartLayout parts() {
            return blob.parts;
        }

        @Override
        public int read(long position, ByteBuffer destination) {
            if (position >= blob.bytes.length) {
                return -1;
            }
            int n = (int) Math.min(destination.remaining(), blob.bytes.length - position);
            destination.put(blob.bytes, (int) position, n);
            return n;
        }

        @Override
        public void close() {
            // nothing held
        }
    }
}
