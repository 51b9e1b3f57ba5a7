package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.StoreError;

/**
 * The ListObjectsV2 contract: prefix, delimiter, common prefixes, pages and continuation tokens, UTF-8
 * byte order.
 */
public abstract class ListingContract extends BucketAndObjectContract {

    @Test
    void listingWithPrefixDelimiterAndPages() throws Exception {
        for (String k : List.of("a", "a/", "a/b", "a/b/c", "a/c", "ab", "b/x", "b/y/z", "c")) {
            put(k, new byte[] {1});
        }
        assertEquals(List.of("a", "a/", "a/b", "a/b/c", "a/c", "ab", "b/x", "b/y/z", "c"), listAll(ListRequest.all()));
        ListPage top = store.list("bucket", new ListRequest("", "/", 1000, null, null));
        assertEquals(List.of("a", "ab", "c"), keys(top));
        assertEquals(List.of("a/", "b/"), top.commonPrefixes());
        assertEquals(5, top.keyCount());
        ListPage underA = store.list("bucket", new ListRequest("a/", "/", 1000, null, null));
        assertEquals(List.of("a/", "a/b", "a/c"), keys(underA), "a key equal to the prefix and ending in the delimiter is listed");
        assertEquals(List.of("a/b/"), underA.commonPrefixes());
        assertEquals(List.of("a/b", "a/b/c"), keys(store.list("bucket", new ListRequest("a/b", "", 1000, null, null))));
        assertTrue(store.list("bucket", new ListRequest("zzz", "/", 1000, null, null)).objects().isEmpty());
        assertEquals(List.of("ab", "b/x", "b/y/z", "c"), keys(store.list("bucket", new ListRequest("", "", 1000, null, "a/c"))));
        assertEquals(List.of("b/y/"), store.list("bucket", new ListRequest("b/", "/", 1000, null, "b/x")).commonPrefixes());
        // paging: each page holds at most maxKeys entries, counting common prefixes, and never repeats one
        for (int max = 1; max <= 6; max++) {
            List<String> all = new ArrayList<>();
            ListRequest request = new ListRequest("", "/", max, null, null);
            ListPage page = store.list("bucket", request);
            while (true) {
                assertTrue(page.keyCount() <= max);
                all.addAll(keys(page));
                all.addAll(page.commonPrefixes());
                if (!page.truncated()) {
                    break;
                }
                page = store.list("bucket", request.withContinuationToken(page.nextContinuationToken()));
            }
            all.sort(ObjectStoreContractTest::utf8Compare);
            assertEquals(List.of("a", "a/", "ab", "b/", "c"), all, "max keys " + max);
        }
        // ListObjects V1 pages by marker: the next page starts after the page's last key or common prefix
        // (its NextMarker), and a marker that is a common prefix skips every key that rolls up into it
        for (String prefix : List.of("", "a/")) {
            for (int max = 1; max <= 6; max++) {
                List<String> all = new ArrayList<>();
                String marker = null;
                for (int pages = 0; ; pages++) {
                    assertTrue(pages < 10, "V1 paging under '" + prefix + "' with max keys " + max
                            + " does not end: a common-prefix marker repeats its prefix");
                    ListPage page = store.list("bucket", new ListRequest(prefix, "/", max, null, marker));
                    all.addAll(keys(page));
                    all.addAll(page.commonPrefixes());
                    if (!page.truncated()) {
                        break;
                    }
                    String lastKey = page.objects().isEmpty() ? null : page.objects().getLast().key();
                    String lastPrefix = page.commonPrefixes().isEmpty() ? null : page.commonPrefixes().getLast();
                    marker = lastKey == null ? lastPrefix : lastPrefix == null ? lastKey
                            : utf8Compare(lastKey, lastPrefix) > 0 ? lastKey : lastPrefix;
                }
                all.sort(ObjectStoreContractTest::utf8Compare);
                assertEquals(prefix.isEmpty() ? List.of("a", "a/", "ab", "b/", "c") : List.of("a/", "a/b", "a/b/", "a/c"),
                        all, "V1 paging under '" + prefix + "' with max keys " + max);
            }
        }
        ListPage zero = store.list("bucket", new ListRequest("", "", 0, null, null));
        assertEquals(0, zero.keyCount());
        assertEquals(List.of("a/b", "a/b/c", "a/c"), listAll(new ListRequest("a/", "", 2, null, "a/")));
        // a multi-character delimiter
        assertEquals(List.of("a/b/"), store.list("bucket", new ListRequest("a", "b/", 1000, null, null)).commonPrefixes());
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.list("bucket",
                new ListRequest("", "", 10, "bm90LWEtdG9rZW4", null))));
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.list("bucket", new ListRequest("", "", 10, "!!", null))));
        ListPage one = store.list("bucket", new ListRequest("", "", 2, null, null));
        assertTrue(one.truncated());
        assertEquals(List.of("a", "a/"), keys(one));
        assertEquals(1, store.list("bucket", ListRequest.all()).objects().stream().filter(o -> o.key().equals("c"))
                .mapToLong(ObjectSummary::size).sum());
    }

    @Test
    void listingIsInUtf8ByteOrderNotUtf16Order() throws Exception {
        // U+FFFD sorts after U+1F600 in UTF-16 (0xFFFD > 0xD83D) but before it in UTF-8 (EF.. < F0..)
        List<String> keys = List.of("\uFFFD", "\uD83D\uDE00", "z", "\u00E9", "\uE000", "A");
        for (String k : keys) {
            put(k, new byte[1]);
        }
        List<String> expected = List.of("A", "z", "\u00E9", "\uE000", "\uFFFD", "\uD83D\uDE00");
        assertEquals(expected, listAll(ListRequest.all()));
        assertEquals(expected, listAll(new ListRequest("", "", 1, null, null)), "continuation keeps the byte order");
        assertEquals(List.of("\uD83D\uDE00"), listAll(new ListRequest("", "", 1000, null, "\uFFFD")));
    }

}
