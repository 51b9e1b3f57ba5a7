package org.objrdma.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * How a cuObject transfer is cut into chunks: an object below four full chunks is cut into four, so staging one
 * chunk overlaps moving the previous one (one chunk serialized store and wire: a 4 MiB GET with the default 8 MiB
 * rdma.chunk.bytes was slower than plain HTTP, docs/bench/profile.md); no chunk below 1 MiB; larger objects
 * keep the configured chunk.
 */
class CuObjPipelineChunkTest {
    private static final long MIB = 1L << 20;

    private static long chunks(long length, int chunk) {
        return (length + chunk - 1) / chunk;
    }

    @Test
    void anObjectBelowFourChunksIsCutIntoFour() {
        assertEquals(MIB, CuObjPipeline.chunkFor(4 * MIB, 8 * MIB), "4 MiB with rdma.chunk.bytes 8 MiB");
        assertEquals(4, chunks(4 * MIB, CuObjPipeline.chunkFor(4 * MIB, 8 * MIB)));
        assertEquals(4 * MIB, CuObjPipeline.chunkFor(16 * MIB, 8 * MIB));
        int odd = CuObjPipeline.chunkFor(4 * MIB + 1, 8 * MIB);
        assertEquals(4, chunks(4 * MIB + 1, odd), "the last chunk is the short one, never a fifth");
    }

    @Test
    void noChunkIsSmallerThanTheFloorAndNoneLargerThanTheObject() {
        assertEquals(MIB, CuObjPipeline.chunkFor(MIB, 8 * MIB), "one chunk: the whole object");
        assertEquals(MIB, CuObjPipeline.chunkFor(3 * MIB, 8 * MIB), "three chunks of the floor");
        assertEquals(100 * 1024, CuObjPipeline.chunkFor(100 * 1024, 8 * MIB), "one chunk: the whole object");
        assertEquals(1, CuObjPipeline.chunkFor(1, 8 * MIB));
    }

    @Test
    void largeObjectsAndSmallConfiguredChunksKeepTheConfiguredChunk() {
        assertEquals(8 * MIB, CuObjPipeline.chunkFor(64 * MIB, 8 * MIB));
        assertEquals(8 * MIB, CuObjPipeline.chunkFor(32 * MIB, 8 * MIB));
        assertEquals(64 * 1024, CuObjPipeline.chunkFor(4 * MIB, 64 * 1024), "a configured chunk below the floor wins");
        assertEquals(1 << 30, CuObjPipeline.chunkFor(8L << 30, 1 << 30));
    }
}
