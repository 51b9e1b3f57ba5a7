package org.objrdma.api.store;

/**
 * S3's conditional write: a PutObject that commits only if the key's current version is as the writer
 * expects, checked by the store atomically with the commit (no other write to the key can land between
 * the check and the commit).
 *
 * @param ifMatch        commit only over a current object with this ETag (quotes optional; {@code *}: any
 *                       current object), or null
 * @param ifNoneMatchAny commit only if the key has no current object ({@code If-None-Match: *})
 * @since 2.2
 */
public record WriteCondition(String ifMatch, boolean ifNoneMatchAny) {
    /** Unconditional. */
    public static final WriteCondition NONE = new WriteCondition(null, false);

    public WriteCondition {
        if (ifMatch != null && ifMatch.isBlank()) {
            throw new IllegalArgumentException("If-Match needs an ETag");
        }
    }

    public boolean isNone() {
        return ifMatch == null && !ifNoneMatchAny;
    }

    /**
     * Throws unless a write may replace {@code currentEtag}.
     *
     * @param currentEtag the ETag of the key's current object, or null if it has none
     * @throws StoreException PRECONDITION_FAILED: an object exists under If-None-Match *, or the current
     *                        object's ETag differs from If-Match (or there is none)
     */
    public void check(String currentEtag) throws StoreException {
        if (ifNoneMatchAny && currentEtag != null) {
            throw new StoreException(StoreError.PRECONDITION_FAILED,
                    "If-None-Match: * failed: an object already exists under this key");
        }
        if (ifMatch != null && (currentEtag == null || !ifMatch.strip().equals("*")
                && !Conditions.unquote(ifMatch).equals(Conditions.unquote(currentEtag)))) {
            throw new StoreException(StoreError.PRECONDITION_FAILED, currentEtag == null
                    ? "If-Match failed: no object exists under this key"
                    : "If-Match failed: the object's ETag is not the one given");
        }
    }
}
