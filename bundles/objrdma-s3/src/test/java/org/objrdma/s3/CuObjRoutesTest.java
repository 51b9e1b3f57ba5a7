package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjRequest;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;

/**
 * The cuObject contract (cuobj.md §10) on GetObject, PutObject and UploadPart through the protocol layer, with
 * the bytes moving over real TCP transports between the client's {@code CuObjAgent} memory and staging buffers
 * (1 MiB chunks, so 64 MiB moves in 64 pipelined chunks). Every refusal is followed by a read proving nothing
 * was stored.
 */
class CuObjRoutesTest {

    private static final int CHUNK = 1 << 20;
    private RdmaFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RdmaFixture(new RdmaSettings(1, CHUNK), true);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
    }

    @AfterEach
    void stop() throws Exception {
        // every lease and facade channel came back
        assertEquals(0, f.pool.stats().borrowed(), "staging back to zero");
        assertEquals(0, f.cuObj.allocatedChannelCount(), "facade channels freed");
        f.close();
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static String crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
    }

    private void putHttp(String key, byte[] data) throws Exception {
        assertEquals(200, f.call("PUT", "/bkt/" + key, "", data).status);
    }

    private byte[] getHttp(String key) throws Exception {
        TestResponse r = f.call("GET", "/bkt/" + key, "", null);
        assertEquals(200, r.status, r.text());
        return r.bytes();
    }

    private static byte[] bytes(ClientMemory mem, long n) {
        return mem.segment().asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    /** GET into client memory, one signed request per agent chunk, the header in the form {@code form} picks. */
    private TestResponse[] last = new TestResponse[1];

    private long rdmaGet(ClientMemory mem, String key, long size, String form, String... headers) {
        return f.agent.get(mem, 0, size, req -> {
            try {
                String[] h = new String[headers.length + 2];
                h[0] = RdmaHeaders.TOKEN;
                h[1] = tokenText(req, form);
                System.arraycopy(headers, 0, h, 2, headers.length);
                TestResponse r = f.call("GET", "/bkt/" + key, "", null, h);
                last[0] = r;
                String moved = r.header(RdmaHeaders.BYTES_TRANSFERRED);
                return moved == null ? -Errno.EIO : Long.parseLong(moved);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static String tokenText(CuObjRequest req, String form) {
        return switch (form) {
            case "bare" -> req.descriptorText();
            case "span" -> req.headerValue();
            case "span;" -> req.headerValue() + ";";
            default -> throw new IllegalArgumentException(form);
        };
    }

    private long rdmaPut(ClientMemory mem, String path, String query, long size, String... headers) {
        return f.agent.put(mem, 0, size, req -> {
            try {
                String[] h = new String[headers.length + 2];
                h[0] = RdmaHeaders.TOKEN;
                h[1] = req.headerValue();
                System.arraycopy(headers, 0, h, 2, headers.length);
                TestResponse r = f.call("PUT", path, query, new byte[0], h);
                last[0] = r;
                return r.status == 200 ? req.size() : -Errno.EIO;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void getMovesObjectsOfEverySizeInEveryTokenForm() throws Exception {
        int[] sizes = {1, 4096, 64 << 20};
        String[] forms = {"bare", "span", "span;"};
        for (int i = 0; i < sizes.length; i++) {
            byte[] data = random(sizes[i], i);
            putHttp("o" + i, data);
            for (String form : forms) {
                if (form.equals("bare") && sizes[i] > 1) {
                    continue; // the bare descriptor names the whole registered region: sized below
                }
                try (ClientMemory mem = f.memory(sizes[i])) {
                    assertEquals(sizes[i], rdmaGet(mem, "o" + i, sizes[i], form), form);
                    TestResponse r = last[0];
                    assertEquals(200, r.status);
                    assertEquals("200", r.header(RdmaHeaders.REPLY));
                    assertEquals(0, r.contentLength);
                    assertEquals(0, r.bytes().length, "no body");
                    assertEquals(String.valueOf(sizes[i]), r.header(RdmaHeaders.BYTES));
                    assertEquals(crc32c(data), crc32c(bytes(mem, sizes[i])), "byte-exact, " + sizes[i] + " B " + form);
                }
            }
        }
    }

    @Test
    void bareDescriptorOfExactlyTheObjectsSize() throws Exception {
        byte[] data = random(4096, 7);
        putHttp("bare", data);
        try (ClientMemory mem = f.memory(4096)) {
            assertEquals(4096, rdmaGet(mem, "bare", 4096, "bare"));
            assertArrayEquals(data, bytes(mem, 4096));
        }
    }

    @Test
    void rangedGetAnswers206WithContentRange() throws Exception {
        byte[] data = random(3 * CHUNK + 17, 3);
        putHttp("r", data);
        long from = CHUNK - 5;
        int len = 2 * CHUNK + 11;
        try (ClientMemory mem = f.memory(len)) {
            assertEquals(len, rdmaGet(mem, "r", len, "span", "Range", "bytes=" + from + "-" + (from + len - 1)));
            TestResponse r = last[0];
            assertEquals(206, r.status);
            assertEquals("206", r.header(RdmaHeaders.REPLY));
            assertEquals("bytes " + from + "-" + (from + len - 1) + "/" + data.length, r.header("Content-Range"));
            byte[] want = java.util.Arrays.copyOfRange(data, (int) from, (int) from + len);
            assertArrayEquals(want, bytes(mem, len));
        }
    }

    @Test
    void putStoresTheBytesThatArrivedWithChecksumsComputedHere() throws Exception {
        int[] sizes = {1, 4096, 64 << 20};
        for (int i = 0; i < sizes.length; i++) {
            byte[] data = random(sizes[i], 10 + i);
            try (ClientMemory mem = f.memory(sizes[i])) {
                MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
                assertEquals(sizes[i], rdmaPut(mem, "/bkt/p" + i, "", sizes[i], "x-amz-sdk-checksum-algorithm", "CRC32C"));
                TestResponse r = last[0];
                assertEquals("200", r.header(RdmaHeaders.REPLY));
                assertEquals(crc32c(data), r.header("x-amz-checksum-crc32c"), "computed over the arrived bytes");
                assertTrue(r.header("ETag").startsWith("\""));
            }
            assertEquals(crc32c(data), crc32c(getHttp("p" + i)), sizes[i] + " B stored byte-exact");
        }
    }

    @Test
    void aConditionalRdmaPutHoldsAsAPlainOne() throws Exception {
        byte[] old = random(100, 21);
        putHttp("cond", old);
        byte[] data = random(4096, 22);
        try (ClientMemory mem = f.memory(4096)) {
            MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            rdmaPut(mem, "/bkt/cond", "", 4096, "If-None-Match", "*");
            assertEquals(412, last[0].status, last[0].text());
            assertArrayEquals(old, getHttp("cond"), "a failed condition stores nothing");
            assertEquals(4096, rdmaPut(mem, "/bkt/cond", "", 4096, "If-Match", "\"" + md5Hex(old) + "\""));
        }
        assertArrayEquals(data, getHttp("cond"));
    }

    private static String md5Hex(byte[] data) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(data));
    }

    @Test
    void aDeclaredChecksumThatDoesNotMatchTheArrivedBytesStoresNothing() throws Exception {
        byte[] data = random(4096, 20);
        try (ClientMemory mem = f.memory(4096)) {
            MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            rdmaPut(mem, "/bkt/bad", "", 4096, "x-amz-checksum-crc32c", crc32c(new byte[] {1}));
            assertEquals(400, last[0].status, last[0].text());
            assertTrue(last[0].text().contains("BadDigest"));
        }
        assertEquals(404, f.call("GET", "/bkt/bad", "", null).status);
    }

    @Test
    void uploadPartOverRdmaThenCompleteOverHttp() throws Exception {
        TestResponse created = f.call("POST", "/bkt/mp", "uploads", new byte[0]);
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created.text());
        assertTrue(m.find(), created.text());
        String uploadId = m.group(1);
        byte[] p1 = random(5 << 20, 30);
        byte[] p2 = random(3 * CHUNK + 5, 31);
        String[] etags = new String[2];
        byte[][] parts = {p1, p2};
        for (int i = 0; i < 2; i++) {
            try (ClientMemory mem = f.memory(parts[i].length)) {
                MemorySegment.copy(parts[i], 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, parts[i].length);
                assertEquals(parts[i].length, rdmaPut(mem, "/bkt/mp", "partNumber=" + (i + 1) + "&uploadId=" + uploadId,
                        parts[i].length));
                etags[i] = last[0].header("ETag");
            }
        }
        String xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etags[0]
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + etags[1]
                + "</ETag></Part></CompleteMultipartUpload>";
        TestResponse done = f.call("POST", "/bkt/mp", "uploadId=" + uploadId, xml.getBytes());
        assertEquals(200, done.status, done.text());
        byte[] whole = new byte[p1.length + p2.length];
        System.arraycopy(p1, 0, whole, 0, p1.length);
        System.arraycopy(p2, 0, whole, p1.length, p2.length);
        assertEquals(crc32c(whole), crc32c(getHttp("mp")));
    }

    @Test
    void zeroBytesAndObjectsBelowTheThresholdAreDeclinedAndGetAnswersWithTheBody() throws Exception {
        putHttp("empty", new byte[0]);
        try (ClientMemory mem = f.memory(16)) {
            CuObjDescriptor d = f.agent.descriptor(mem, 0, 16, Op.GET).descriptor();
            TestResponse r = f.call("GET", "/bkt/empty", "", null, RdmaHeaders.TOKEN, d.format());
            assertEquals(200, r.status);
            assertEquals("501", r.header(RdmaHeaders.REPLY), "a 0-byte object is declined");
            assertEquals(0, r.bytes().length);
        }
        f.close();
        f = new RdmaFixture(new RdmaSettings(8192, CHUNK), true);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        byte[] small = random(4096, 40);
        putHttp("small", small);
        try (ClientMemory mem = f.memory(4096)) {
            CuObjDescriptor d = f.agent.descriptor(mem, 0, 4096, Op.GET).descriptor();
            TestResponse r = f.call("GET", "/bkt/small", "", null, RdmaHeaders.TOKEN, d.format());
            assertEquals(200, r.status);
            assertEquals("501", r.header(RdmaHeaders.REPLY));
            assertArrayEquals(small, r.bytes(), "declined GET answers with the body");
            CuObjDescriptor p = f.agent.descriptor(mem, 0, 4096, Op.PUT).descriptor();
            TestResponse put = f.call("PUT", "/bkt/small2", "", new byte[0], RdmaHeaders.TOKEN, p.format());
            assertEquals(501, put.status, put.text());
            assertEquals("501", put.header(RdmaHeaders.REPLY));
        }
        assertEquals(404, f.call("GET", "/bkt/small2", "", null).status, "a declined PUT stores nothing");
    }

    /**
     * {@code rdma.declined.put=200} (Cloudian-style clients): a declined PUT and UploadPart answer HTTP 200 with reply
     * 501, no ETag and 0 bytes moved, and store nothing; a successful PUT keeps its answer.
     */
    @Test
    void aDeclinedPutAnswers200WithoutAnETagInCloudianModeAndStoresNothing() throws Exception {
        f.close();
        f = new RdmaFixture(new RdmaSettings(8192, CHUNK).withDeclinedPut(RdmaSettings.DeclinedPut.STATUS_200), true);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        try (ClientMemory mem = f.memory(16384)) {
            CuObjDescriptor small = f.agent.descriptor(mem, 0, 4096, Op.PUT).descriptor();
            TestResponse put = f.call("PUT", "/bkt/declined", "", new byte[0], RdmaHeaders.TOKEN, small.format());
            assertEquals(200, put.status, put.text());
            assertEquals("501", put.header(RdmaHeaders.REPLY));
            assertEquals("0", put.header(RdmaHeaders.BYTES_TRANSFERRED));
            assertEquals(null, put.header("ETag"), "no ETag: a client reading ETag as success must not see one");
            assertEquals(404, f.call("GET", "/bkt/declined", "", null).status, "a declined PUT stores nothing");
            TestResponse created = f.call("POST", "/bkt/mp", "uploads", new byte[0]);
            String upload = created.text().replaceAll("(?s).*<UploadId>([^<]+)</UploadId>.*", "$1");
            TestResponse part = f.call("PUT", "/bkt/mp", "partNumber=1&uploadId=" + upload, new byte[0],
                    RdmaHeaders.TOKEN, small.format());
            assertEquals(200, part.status, part.text());
            assertEquals("501", part.header(RdmaHeaders.REPLY));
            assertEquals(null, part.header("ETag"));
            assertTrue(!f.call("GET", "/bkt/mp", "uploadId=" + upload, null).text().contains("<Part>"),
                    "a declined UploadPart stores no part");
            CuObjDescriptor big = f.agent.descriptor(mem, 0, 16384, Op.PUT).descriptor();
            TestResponse ok = f.call("PUT", "/bkt/stored", "", new byte[0], RdmaHeaders.TOKEN, big.format());
            assertEquals(200, ok.status, ok.text());
            assertEquals("200", ok.header(RdmaHeaders.REPLY));
            assertTrue(ok.header("ETag") != null && !ok.header("ETag").isBlank());
        }
    }

    @Test
    void withoutRdmaServicesEveryTokenIsDeclined() throws Exception {
        f.close();
        f = new RdmaFixture(new RdmaSettings(1, CHUNK), false);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        byte[] data = random(4096, 50);
        putHttp("x", data);
        try (ClientMemory mem = f.memory(4096)) {
            TestResponse r = f.call("GET", "/bkt/x", "", null, RdmaHeaders.TOKEN, f.agent.descriptor(mem, 0, 4096, Op.GET).descriptor().format());
            assertEquals("501", r.header(RdmaHeaders.REPLY));
            assertArrayEquals(data, r.bytes());
            TestResponse put = f.call("PUT", "/bkt/y", "", new byte[0], RdmaHeaders.TOKEN,
                    f.agent.descriptor(mem, 0, 4096, Op.PUT).descriptor().format());
            assertEquals(501, put.status);
        }
        assertEquals(404, f.call("GET", "/bkt/y", "", null).status);
    }

    @Test
    void aDescriptorOfATransportThisGatewayLacksIsDeclined() throws Exception {
        byte[] data = random(4096, 60);
        putHttp("dc", data);
        // a DC descriptor over verbs (no GID, a LID): nothing here serves it
        String dc = "00007f0000001000:00001000:00000042:0001:000007:0:00000000000000000000000000000000";
        TestResponse r = f.call("GET", "/bkt/dc", "", null, RdmaHeaders.TOKEN, dc);
        assertEquals(200, r.status, r.text());
        assertEquals("501", r.header(RdmaHeaders.REPLY));
        assertArrayEquals(data, r.bytes());
    }

    @Test
    void malformedTokensAre400WithoutAReplyHeader() throws Exception {
        putHttp("m", random(10, 1));
        String good;
        try (ClientMemory mem = f.memory(10)) {
            good = f.agent.descriptor(mem, 0, 10, Op.GET).descriptor().format();
        }
        for (String bad : new String[] {"", "zz", good.substring(1), good + ":1", good + ";;", good.replace(':', '-'),
                good + ":10:ffffffffffffffff"}) {
            TestResponse r = f.call("GET", "/bkt/m", "", null, RdmaHeaders.TOKEN, bad.isEmpty() ? " " : bad);
            assertEquals(400, r.status, bad + " -> " + r.text());
            assertTrue(r.text().contains("InvalidRDMAToken"), r.text());
            assertNull(r.header(RdmaHeaders.REPLY));
            TestResponse p = f.call("PUT", "/bkt/m2", "", new byte[0], RdmaHeaders.TOKEN, bad.isEmpty() ? " " : bad);
            assertEquals(400, p.status);
        }
        assertEquals(404, f.call("GET", "/bkt/m2", "", null).status);
    }

    @Test
    void anUnsignedRdmaHeaderIs403() throws Exception {
        putHttp("u", random(10, 1));
        try (ClientMemory mem = f.memory(10)) {
            String token = f.agent.descriptor(mem, 0, 10, Op.GET).descriptor().format();
            TestRequest r = SdkSigner.sign("GET", "/bkt/u", "", null, SdkSigner.Body.UNSIGNED, java.time.Instant.now());
            r.header(RdmaHeaders.TOKEN, token);
            TestResponse out = f.call(r);
            assertEquals(403, out.status, out.text());
            assertTrue(out.text().contains("were not signed") && out.text().contains(RdmaHeaders.TOKEN), out.text());
            TestRequest p = SdkSigner.sign("PUT", "/bkt/u2", "", new byte[0], SdkSigner.Body.UNSIGNED,
                    java.time.Instant.now(), RdmaHeaders.TOKEN, token);
            p.header(RdmaHeaders.AGENT, "cuobj"); // added after signing
            assertEquals(403, f.call(p).status);
        }
        assertEquals(404, f.call("GET", "/bkt/u2", "", null).status);
    }

    @Test
    void aPutWithABodyOrTooLargeIsRefused() throws Exception {
        try (ClientMemory mem = f.memory(4096)) {
            String token = f.agent.descriptor(mem, 0, 4096, Op.PUT).descriptor().format();
            TestResponse r = f.call("PUT", "/bkt/b", "", new byte[5], RdmaHeaders.TOKEN, token);
            assertEquals(400, r.status, r.text());
            assertTrue(r.text().contains("no body"));
        }
        assertEquals(404, f.call("GET", "/bkt/b", "", null).status);
    }

    @Test
    void aFailedTransferIs500ForPutAnd502ForGetAndCommitsNothing() throws Exception {
        putHttp("old", random(4096, 70));
        try (ClientMemory mem = f.memory(4096)) {
            // a wrong rkey: the client agent refuses the access, the transfer fails
            CuObjDescriptor d = f.agent.descriptor(mem, 0, 4096, Op.PUT).descriptor();
            CuObjDescriptor forged = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey() ^ 0x5a5a,
                    d.lid(), d.targetNumber(), d.hasGid(), d.gid());
            TestResponse put = f.call("PUT", "/bkt/old", "", new byte[0], RdmaHeaders.TOKEN, forged.format());
            assertEquals(500, put.status, put.text());
            assertTrue(put.text().contains("RDMATransferFailed"));
        }
        assertEquals(crc32c(random(4096, 70)), crc32c(getHttp("old")), "the old object is intact");
        try (ClientMemory mem = f.memory(4096)) {
            CuObjDescriptor d = f.agent.descriptor(mem, 0, 4096, Op.GET).descriptor();
            CuObjDescriptor forged = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey() ^ 0x5a5a,
                    d.lid(), d.targetNumber(), d.hasGid(), d.gid());
            TestResponse get = f.call("GET", "/bkt/old", "", null, RdmaHeaders.TOKEN, forged.format());
            assertEquals(502, get.status, get.text());
            assertTrue(get.text().contains("RDMATransferFailed"));
        }
    }

    @Test
    void aGetFailingWithBothChunksInFlightIs502AndReturnsItsStaging() throws Exception {
        int size = 3 * CHUNK + 17; // both staging buffers' writes are posted before the first one's completion
        putHttp("multi", random(size, 71));
        try (ClientMemory mem = f.memory(size)) {
            CuObjDescriptor d = f.agent.descriptor(mem, 0, size, Op.GET).descriptor();
            CuObjDescriptor forged = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey() ^ 0x5a5a,
                    d.lid(), d.targetNumber(), d.hasGid(), d.gid());
            TestResponse get = f.call("GET", "/bkt/multi", "", null, RdmaHeaders.TOKEN, forged.format());
            assertEquals(502, get.status, get.text());
            assertTrue(get.text().contains("RDMATransferFailed"));
            assertTrue(get.text().contains("after 0 bytes"), get.text());
        }
        // the staging buffers went back once both writes had ended (checked after each test) and the object is intact
        assertEquals(crc32c(random(size, 71)), crc32c(getHttp("multi")));
    }
}
