package org.objrdma.api.store;

import java.util.List;

/**
 * One ListObjectsV2 page.
 *
 * @param objects               keys in UTF-8 byte order
 * @param commonPrefixes        rolled-up prefixes in UTF-8 byte order
 * @param truncated             more follows
 * @param nextContinuationToken the token for the next page when truncated, else null
 */
public record ListPage(List<ObjectSummary> objects, List<String> commonPrefixes, boolean truncated,
        String nextContinuationToken) {
    public ListPage {
        objects = List.copyOf(objects);
        commonPrefixes = List.copyOf(commonPrefixes);
        if (truncated != (nextContinuationToken != null)) {
            throw new IllegalArgumentException("a truncated page has a continuation token, a last page none");
        }
    }

    /** S3's KeyCount: keys plus common prefixes. */
    public int keyCount() {
        return objects.size() + commonPrefixes.size();
    }
}
