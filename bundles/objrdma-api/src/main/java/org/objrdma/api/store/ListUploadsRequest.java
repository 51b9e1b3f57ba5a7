package org.objrdma.api.store;

/**
 * A ListMultipartUploads request; uploads are ordered by key (UTF-8 bytes), then by initiation.
 *
 * @param prefix         only keys starting with it; empty for all
 * @param keyMarker      start after this key (with no upload id marker: after all its uploads), or null
 * @param uploadIdMarker with a key marker: start after this upload of that key, or null
 * @param maxUploads     0..1000, larger values capped at 1000
 */
public record ListUploadsRequest(String prefix, String keyMarker, String uploadIdMarker, int maxUploads) {
    public ListUploadsRequest {
        prefix = prefix == null ? "" : prefix;
        keyMarker = keyMarker == null || keyMarker.isEmpty() ? null : keyMarker;
        uploadIdMarker = uploadIdMarker == null || uploadIdMarker.isEmpty() ? null : uploadIdMarker;
        if (maxUploads < 0) {
            throw new IllegalArgumentException("maxUploads must not be negative, was " + maxUploads);
        }
        maxUploads = Math.min(maxUploads, StoreLimits.MAX_KEYS);
    }

    /** All uploads, 1000 per page. */
    public static ListUploadsRequest all() {
        return new ListUploadsRequest("", null, null, StoreLimits.MAX_KEYS);
    }
}
