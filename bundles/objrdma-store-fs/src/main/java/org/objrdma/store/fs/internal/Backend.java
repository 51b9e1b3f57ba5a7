package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;

/**
 * Where a {@link StoreEngine} keeps bytes and records: the file system or memory. The engine owns the
 * rules, names, indexes and locking; a backend only persists what it is told and loads it back, and it
 * never sees a name the engine has not validated (upload ids included).
 */
interface Backend extends AutoCloseable {

    /** What a backend holds at start: buckets with their objects and uploads in progress. */
    record Loaded(List<LoadedBucket> buckets) {
    }

    record LoadedBucket(BucketInfo info, List<ObjectInfo> objects, List<LoadedUpload> uploads) {
    }

    record LoadedUpload(UploadRecord upload, List<PartInfo> parts) {
    }

    /** Reads back everything committed, after removing what interrupted writes left. */
    Loaded load() throws IOException;

    void createBucket(BucketInfo bucket) throws IOException;

    void deleteBucket(String bucket) throws IOException;

    /** Replaces the record of an existing bucket (its ACL changed) atomically: a reader sees the old or the new. */
    void updateBucket(BucketInfo bucket) throws IOException;

    /** A place to write the bytes of a new object or part before it is committed. */
    Staging stage() throws IOException;

    /** Makes the sealed bytes the object {@code key}, atomically replacing any earlier one. */
    void commitObject(String bucket, String key, Staging sealed) throws IOException;

    void deleteObject(String bucket, String key) throws IOException;

    /** The current version of an object, or null if there is none. */
    BlobReader openObject(String bucket, String key) throws IOException;

    void createUpload(String bucket, UploadRecord upload) throws IOException;

    /** Makes the sealed bytes part {@code partNumber}, atomically replacing an earlier one. */
    void commitPart(String bucket, String uploadId, int partNumber, Staging sealed) throws IOException;

    /** Appends the bytes of a committed part to {@code target} (without a heap copy where possible). */
    void appendPart(String bucket, String uploadId, PartInfo part, Staging target) throws IOException;

    void deleteUpload(String bucket, String uploadId) throws IOException;

    @Override
    void close() throws IOException;

    /** Bytes being written; abandoned (and removed) unless committed. */
    interface Staging extends AutoCloseable {
        /** Writes all of the buffer's remaining bytes. */
        void write(ByteBuffer bytes) throws IOException;

        /**
         * Makes the bytes written so far durable ahead of the seal, where the medium is durable at all: lets the
         * slow part of the seal's force overlap the digest, which must end before the seal can start. The seal
         * still forces (its record and the file's length); nothing to do for a medium without a force.
         */
        default void forceWritten() throws IOException {
        }

        /**
         * Ends the bytes of an object and makes them durable with their record (the slow part of a commit,
         * done before the engine takes its lock).
         */
        void sealObject(ObjectInfo info, PartLayout parts) throws IOException;

        /** As {@link #sealObject} for a part. */
        void sealPart(PartInfo info) throws IOException;

        /** Discards the bytes if they were not committed; idempotent. */
        @Override
        void close();
    }

    /** One committed version, open for reading. */
    interface BlobReader extends AutoCloseable {
        ObjectInfo info();

        /** Where the version's parts lie (one part for a single put). */
        PartLayout parts();

        /** Reads at {@code position} into {@code destination} until it is full or the data ends. */
        int read(long position, ByteBuffer destination) throws IOException;

        @Override
        void close();
    }
}
