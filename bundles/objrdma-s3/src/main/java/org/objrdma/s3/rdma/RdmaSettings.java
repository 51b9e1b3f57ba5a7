package org.objrdma.s3.rdma;

/**
 * How the gateway runs the RDMA paths (PID {@code org.objrdma.s3}, properties {@code rdma.*}).
 *
 * @param minBytes   smallest object (GET range, PUT size) moved over cuObject; smaller ones are declined with
 *                   {@code x-amz-rdma-reply: 501} (a GET answers with the body), where RDMA does not pay.
 *                   At least 1: a 0-byte transfer is always declined
 * @param chunkBytes bytes per staging buffer of a cuObject transfer; larger objects move in chunks of this
 *                   size through two staging buffers, the next chunk staged while the previous one moves
 *                   (4096 .. 1 GiB)
 */
public record RdmaSettings(long minBytes, long chunkBytes) {

    public static final RdmaSettings DEFAULTS = new RdmaSettings(1, 8L << 20);

    public RdmaSettings {
        if (minBytes < 1) {
            throw new IllegalArgumentException("rdma.min.bytes must be at least 1, was " + minBytes);
        }
        if (chunkBytes < 4096 || chunkBytes > (1L << 30)) {
            throw new IllegalArgumentException("rdma.chunk.bytes must be 4096 .. 1073741824, was " + chunkBytes);
        }
    }
}
