package org.objrdma.api.session;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A consume-once view of a session's staging buffer: the staging lease of a GET (to fill) or the put
 * view of a PUT (to commit). Valid only until the matching finish call consumes {@link #handle()}.
 *
 * @param sessionId the session
 * @param handle    what the finish call presents
 * @param buffer    the bytes: the whole object range
 */
public record SessionBuffer(SessionId sessionId, LeaseHandle handle, MemorySegment buffer) {
    public SessionBuffer {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(handle, "handle");
        Objects.requireNonNull(buffer, "buffer");
    }
}
