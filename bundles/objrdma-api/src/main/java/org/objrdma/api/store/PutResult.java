package org.objrdma.api.store;

import java.util.Objects;

/**
 * The end of a committed write.
 *
 * @param etag      the new object's (or part's) etag
 * @param versionId the new version, empty if the store does not version
 */
public record PutResult(String etag, String versionId) {
    public PutResult {
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(versionId, "versionId");
    }
}
