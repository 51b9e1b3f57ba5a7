package org.objrdma.cuobj;

import java.lang.foreign.MemorySegment;

/**
 * {@code cuObjScatterGatherEntry_t}: one piece of host memory of a scatter-gather registration. The first
 * {@code size} bytes of {@code addr} are registered; {@code addr} must be native memory of a shared or global
 * arena, and stay alive until the buffer is deregistered. Checked by {@code registerBuffer}, not here (a null
 * {@code addr} or a bad size makes the registration return null, as in C).
 *
 * @param addr host memory
 * @param size bytes, 1 .. {@code addr.byteSize()}
 */
public record CuObjScatterGatherEntry(MemorySegment addr, long size) {
    /** The whole segment. */
    public static CuObjScatterGatherEntry of(MemorySegment segment) {
        return new CuObjScatterGatherEntry(segment, segment.byteSize());
    }
}
