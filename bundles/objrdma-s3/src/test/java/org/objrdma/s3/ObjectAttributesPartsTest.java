package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.PutOptions;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/** GetObjectAttributes' ObjectParts: the part list of a multipart object and its paging, as ceph's s3-tests read it. */
class ObjectAttributesPartsTest {
    private static final int MIB = 1024 * 1024;
    private static final int[] SIZES = {5 * MIB, 5 * MIB, 5 * MIB, 100};

    private EmbeddedStore store;
    private S3Gateway gateway;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
        store.createBucket(SdkSigner.AK, "bkt");
        byte[][] parts = new byte[SIZES.length][];
        for (int i = 0; i < SIZES.length; i++) {
            parts[i] = new byte[SIZES[i]];
        }
        StoredMultipart.put(store, "bkt", "mp", parts);
        store.put("bkt", "single", new ByteArrayInputStream(new byte[10]), 10, PutOptions.DEFAULT);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse attributes(String key, String... headers) throws IOException {
        String[] all = new String[headers.length + 2];
        all[0] = "x-amz-object-attributes";
        all[1] = "ETag,ObjectParts,ObjectSize";
        System.arraycopy(headers, 0, all, 2, headers.length);
        TestResponse out = new TestResponse();
        gateway.handle(SdkSigner.sign("GET", "/bkt/" + key, "attributes", null, Body.SIGNED_HASH, Instant.now(), all),
                out);
        return out;
    }

    private static String parts(TestResponse r) {
        assertEquals(200, r.status, r.text());
        return r.text().replaceAll("(?s).*<ObjectParts>(.*)</ObjectParts>.*", "$1");
    }

    private static String part(int n) {
        return "<Part><PartNumber>" + n + "</PartNumber><Size>" + SIZES[n - 1] + "</Size></Part>";
    }

    @Test
    void everyPartIsListedWithItsSize() throws Exception {
        assertEquals("<PartsCount>4</PartsCount><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>4"
                + "</NextPartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>"
                + part(1) + part(2) + part(3) + part(4), parts(attributes("mp")).replaceAll(">\\s+<", "><").strip());
    }

    @Test
    void partsArePagedByMaxPartsAndThePartNumberMarker() throws Exception {
        String page = parts(attributes("mp", "x-amz-max-parts", "1", "x-amz-part-number-marker", "2"))
                .replaceAll(">\\s+<", "><").strip();
        assertEquals("<PartsCount>4</PartsCount><PartNumberMarker>2</PartNumberMarker><NextPartNumberMarker>3"
                + "</NextPartNumberMarker><MaxParts>1</MaxParts><IsTruncated>true</IsTruncated>" + part(3), page);
        String rest = parts(attributes("mp", "x-amz-max-parts", "10", "x-amz-part-number-marker", "3"))
                .replaceAll(">\\s+<", "><").strip();
        assertTrue(rest.contains("<IsTruncated>false</IsTruncated>" + part(4)), rest);
        TestResponse bad = attributes("mp", "x-amz-max-parts", "many");
        assertEquals(400, bad.status, bad.text());
        assertTrue(bad.text().contains("<Code>InvalidArgument</Code>"), bad.text());
    }

    @Test
    void aSinglePutObjectHasNoObjectParts() throws Exception {
        TestResponse r = attributes("single");
        assertEquals(200, r.status, r.text());
        assertFalse(r.text().contains("ObjectParts"), r.text());
    }
}
