package org.objrdma.api.store;

import java.util.Objects;

/**
 * The end of a ranged read.
 *
 * @param bytesRead bytes placed in the destination (fewer than asked only at the object's end)
 * @param etag      the object's etag at the time of the read
 * @param versionId the version read, empty if the store does not version
 */
public record ReadResult(long bytesRead, String etag, String versionId) {
    public ReadResult {
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(versionId, "versionId");
    }
}
