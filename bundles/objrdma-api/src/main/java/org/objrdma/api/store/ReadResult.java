package org.objrdma.api.store;

import java.util.Objects;

/**
 * The end of a ranged read into a segment.
 *
 * @param bytesRead bytes placed in the destination (fewer than it holds only at the object's end)
 * @param object    the version read
 */
public record ReadResult(long bytesRead, ObjectInfo object) {
    public ReadResult {
        Objects.requireNonNull(object, "object");
    }
}
