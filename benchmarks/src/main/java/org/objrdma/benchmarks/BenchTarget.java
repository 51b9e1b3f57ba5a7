package org.objrdma.benchmarks;

/** Something objects can be put into and read back from: an S3 endpoint, or a store's Java API in-process. */
interface BenchTarget extends AutoCloseable {

    String name();

    void put(String key, byte[] data) throws Exception;

    /** Reads {@code key} through {@code buffer} (overwritten, not accumulated); returns the byte count. */
    long get(String key, byte[] buffer) throws Exception;
}
