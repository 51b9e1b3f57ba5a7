package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/** ListBuckets with max-buckets / continuation-token / prefix, as ceph's s3-tests test_list_buckets_paginated. */
class ListBucketsPagingTest {
    private EmbeddedStore store;
    private S3Gateway gateway;

    @BeforeEach
    void start() {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET, "OTHERKEY", "otherSecret"));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse list(String query) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(SdkSigner.sign("GET", "/", query, null, Body.SIGNED_HASH, Instant.now()), out);
        return out;
    }

    private static List<String> names(TestResponse r) {
        assertEquals(200, r.status, r.text());
        return Pattern.compile("<Name>([^<]+)</Name>").matcher(r.text()).results().map(m -> m.group(1)).toList();
    }

    private static String token(TestResponse r) {
        Matcher m = Pattern.compile("<ContinuationToken>([^<]+)</ContinuationToken>").matcher(r.text());
        return m.find() ? m.group(1) : null;
    }

    @Test
    void pagesFollowTheContinuationTokenAndTheLastPageHasNone() throws Exception {
        TestResponse empty = list("max-buckets=1");
        assertEquals(List.of(), names(empty));
        assertEquals(null, token(empty));
        store.createBucket(SdkSigner.AK, "bucket-a");
        assertEquals(null, token(list("max-buckets=1")), "one bucket fits one page");
        store.createBucket(SdkSigner.AK, "bucket-b");
        store.createBucket(SdkSigner.AK, "other-c");
        store.createBucket("OTHERKEY", "bucket-foreign");
        TestResponse first = list("max-buckets=1");
        assertEquals(List.of("bucket-a"), names(first));
        TestResponse second = list("max-buckets=2&continuation-token=" + token(first));
        assertEquals(List.of("bucket-b", "other-c"), names(second));
        assertEquals(null, token(second));
        assertEquals(List.of("bucket-a", "bucket-b", "other-c"), names(list("")), "unpaged: every bucket");
        TestResponse prefixed = list("prefix=bucket-&max-buckets=5");
        assertEquals(List.of("bucket-a", "bucket-b"), names(prefixed));
        assertTrue(prefixed.text().contains("<Prefix>bucket-</Prefix>"), prefixed.text());
        assertEquals(List.of(), names(list("bucket-region=eu-west-1")));
    }

    @Test
    void aTokenThisGatewayDidNotIssueOrABadMaxIsInvalidArgument() throws Exception {
        for (String q : List.of("max-buckets=1&continuation-token=%21%21", "max-buckets=0", "max-buckets=10001",
                "continuation-token=QUJD")) {
            TestResponse r = list(q);
            assertEquals(400, r.status, q + ": " + r.text());
            assertTrue(r.text().contains("<Code>InvalidArgument</Code>"), r.text());
            assertFalse(r.text().contains("<Bucket>"), r.text());
        }
    }
}
