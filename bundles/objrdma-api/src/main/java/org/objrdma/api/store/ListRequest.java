package org.objrdma.api.store;

/**
 * A ListObjectsV2 request. Keys are compared as unsigned UTF-8 bytes (S3's order, which differs from
 * {@link String#compareTo} for characters beyond the BMP).
 *
 * @param prefix            only keys starting with it; empty for all
 * @param delimiter         keys whose rest after the prefix contains it are rolled up into one common
 *                          prefix (up to and including the delimiter's first occurrence); empty for none
 * @param maxKeys           most keys plus common prefixes on the page, 0..{@link StoreLimits#MAX_KEYS};
 *                          larger values are capped at 1000, as S3 does
 * @param continuationToken the previous page's {@link ListPage#nextContinuationToken()}, or null; a token
 *                          the store did not issue fails with INVALID_ARGUMENT
 * @param startAfter        only keys after it; ignored when a continuation token is given; null for none
 */
public record ListRequest(String prefix, String delimiter, int maxKeys, String continuationToken, String startAfter) {
    public ListRequest {
        prefix = prefix == null ? "" : prefix;
        delimiter = delimiter == null ? "" : delimiter;
        if (maxKeys < 0) {
            throw new IllegalArgumentException("maxKeys must not be negative, was " + maxKeys);
        }
        maxKeys = Math.min(maxKeys, StoreLimits.MAX_KEYS);
        continuationToken = continuationToken == null || continuationToken.isEmpty() ? null : continuationToken;
        startAfter = startAfter == null || startAfter.isEmpty() ? null : startAfter;
    }

    /** Everything, 1000 per page. */
    public static ListRequest all() {
        return new ListRequest("", "", StoreLimits.MAX_KEYS, null, null);
    }

    public ListRequest withContinuationToken(String token) {
        return new ListRequest(prefix, delimiter, maxKeys, token, startAfter);
    }
}
