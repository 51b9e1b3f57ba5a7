package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;

/**
 * A memory-window work request a channel posts for {@link ChannelGrants}: a bind of {@code mw} with the new
 * {@code rkey} over {@code [address, address + length)} of {@code mr}, or a local invalidate of {@code rkey}
 * ({@code mw} null).
 */
record WindowWork(MemorySegment mw, int rkey, MemorySegment mr, long address, long length, int access) {
    static WindowWork bind(MemorySegment mw, int rkey, MemorySegment mr, long address, long length, int access) {
        return new WindowWork(mw, rkey, mr, address, length, access);
    }

    static WindowWork invalidate(int rkey) {
        return new WindowWork(null, rkey, null, 0, 0, 0);
    }
}
