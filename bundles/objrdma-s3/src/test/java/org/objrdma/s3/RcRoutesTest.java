package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.crc32c;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.RcTransfer;
import org.objrdma.s3.RdmaFixture.Prepared;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;

/**
 * The hipobj-rc-v2 routes (rc-session.md §1.5–1.6) through the protocol layer: the Java client's
 * {@code RcClient} runs the data phase over a real TCP transport against the real session core and staging
 * pool; PREPARE, READY and CANCEL are signed requests. Every error row of the mapping table, the principal
 * rules, and a client that goes away mid-GET and mid-PUT.
 */
class RcRoutesTest {

    private RdmaFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
    }

    @AfterEach
    void stop() throws Exception {
        await("staging back to zero", () -> f.pool.stats().borrowed() == 0);
        await("no live session", () -> f.core.liveSessions() == 0);
        f.close();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    private void putHttp(String key, byte[] data) throws Exception {
        assertEquals(200, f.call("PUT", "/bkt/" + key, "", data).status);
    }

    private static void assertError(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    private List<TerminalEvent> endsOf(String session) {
        return f.ended.stream().filter(e -> e.sessionId().hex().equals(session)).toList();
    }

    @Test
    void getOfEverySizeAndARange() throws Exception {
        int[] sizes = {1, 4096, 64 << 20};
        for (int i = 0; i < sizes.length; i++) {
            byte[] data = random(sizes[i], 100 + i);
            putHttp("g" + i, data);
            try (ClientMemory mem = f.memory(sizes[i])) {
                Prepared p = f.prepare(Op.GET, mem, "/bkt/g" + i, 0, sizes[i]);
                assertEquals(200, p.response().status, p.response().text());
                assertTrue(p.response().header(RdmaHeaders.REPLY).startsWith("200:"));
                assertEquals(RdmaHeaders.RC_PROTOCOL, p.response().header(RdmaHeaders.PROTOCOL));
                assertEquals("0", p.response().header(RdmaHeaders.MR_ADDR), "a GET's PREPARE names no server address");
                assertEquals("0", p.response().header(RdmaHeaders.MR_RKEY));
                TestResponse ready = f.run(p);
                assertEquals(200, ready.status, ready.text());
                assertEquals(String.valueOf(sizes[i]), ready.header(RdmaHeaders.BYTES_TRANSFERRED));
                assertEquals(String.format("%08X", p.transfer().cookie()), ready.header(RdmaHeaders.COOKIE));
                assertNotNull(ready.header(RdmaHeaders.ETAG));
                assertEquals(crc32c(data), crc32c(mem.segment().asSlice(0, sizes[i]).toArray(ValueLayout.JAVA_BYTE)));
                await("session ended", () -> endsOf(p.session().hex()).size() == 1);
                assertEquals(TerminalReason.COMPLETED, endsOf(p.session().hex()).get(0).reason());
            }
        }
        byte[] data = random(1 << 20, 110);
        putHttp("range", data);
        try (ClientMemory mem = f.memory(4096)) {
            TestResponse ready = f.run(f.prepare(Op.GET, mem, "/bkt/range", 12345, 4096));
            assertEquals(200, ready.status, ready.text());
            assertArrayEquals(Arrays.copyOfRange(data, 12345, 12345 + 4096), mem.segment().asSlice(0, 4096)
                    .toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void putOfEverySizeCommitsThroughTheStoreWithTheEtagInTheReply() throws Exception {
        int[] sizes = {1, 4096, 64 << 20};
        for (int i = 0; i < sizes.length; i++) {
            byte[] data = random(sizes[i], 200 + i);
            try (ClientMemory mem = f.memory(sizes[i])) {
                MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
                Prepared p = f.prepare(Op.PUT, mem, "/bkt/p" + i, 0, sizes[i]);
                assertEquals(200, p.response().status, p.response().text());
                TestResponse ready = f.run(p);
                assertEquals(200, ready.status, ready.text());
                TestResponse head = f.call("HEAD", "/bkt/p" + i, "", null);
                assertEquals(head.header("ETag"), ready.header("ETag"));
                assertEquals(head.header("ETag"), ready.header(RdmaHeaders.ETAG));
            }
            TestResponse got = f.call("GET", "/bkt/p" + i, "", null);
            assertEquals(crc32c(data), crc32c(got.bytes()), sizes[i] + " B byte-exact");
        }
    }

    /**
     * The teardown race of the TCP transport: the server closes the session's channel right after the commit, and
     * the acknowledgement of the client's WRITE_WITH_IMM must still reach the client (it used to be lost now and
     * then: RETRY_EXC_ERR on the client after READY answered 200). {@link RdmaFixture#run} is strict about it.
     */
    @Test
    void everySmallPutsAcknowledgementSurvivesTheTeardown() throws Exception {
        byte[] data = random(1, 250);
        try (ClientMemory mem = f.memory(1)) {
            MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, 1);
            for (int i = 0; i < 200; i++) {
                TestResponse ready = f.run(f.prepare(Op.PUT, mem, "/bkt/ack", 0, 1));
                assertEquals(200, ready.status, i + ": " + ready.text());
            }
        }
    }

    @Test
    void uploadPartOverRcThenCompleteOverHttp() throws Exception {
        TestResponse created = f.call("POST", "/bkt/mp", "uploads", new byte[0]);
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created.text());
        assertTrue(m.find());
        String uploadId = m.group(1);
        byte[] p1 = random(5 << 20, 300);
        byte[] p2 = random(1000, 301);
        byte[][] parts = {p1, p2};
        String[] etags = new String[2];
        for (int i = 0; i < 2; i++) {
            try (ClientMemory mem = f.memory(parts[i].length)) {
                MemorySegment.copy(parts[i], 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, parts[i].length);
                TestResponse ready = f.run(f.prepare(Op.PUT, mem, "/bkt/mp?uploadId=" + uploadId + "&partNumber=" + (i + 1),
                        0, parts[i].length));
                assertEquals(200, ready.status, ready.text());
                etags[i] = ready.header("ETag");
            }
        }
        String xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etags[0]
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + etags[1] + "</ETag></Part></CompleteMultipartUpload>";
        assertEquals(200, f.call("POST", "/bkt/mp", "uploadId=" + uploadId, xml.getBytes()).status);
        byte[] whole = new byte[p1.length + p2.length];
        System.arraycopy(p1, 0, whole, 0, p1.length);
        System.arraycopy(p2, 0, whole, p1.length, p2.length);
        assertEquals(crc32c(whole), crc32c(f.call("GET", "/bkt/mp", "", null).bytes()));
    }

    /**
     * GetPart over hipobj-rc-v2: the target names {@code ?partNumber=N}, offset and size are inside that part; the
     * PREPARE answer says where the bytes lie ({@code Content-Range}) and, for a multipart object, the parts count.
     */
    @Test
    void getByPartNumberMovesThatPart() throws Exception {
        TestResponse created = f.call("POST", "/bkt/parts", "uploads", new byte[0]);
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created.text());
        assertTrue(m.find());
        byte[] p1 = random(5 << 20, 320);
        byte[] p2 = random(3000, 321);
        String[] etags = new String[2];
        byte[][] parts = {p1, p2};
        for (int i = 0; i < 2; i++) {
            TestResponse up = f.call("PUT", "/bkt/parts", "partNumber=" + (i + 1) + "&uploadId=" + m.group(1), parts[i]);
            assertEquals(200, up.status, up.text());
            etags[i] = up.header("ETag");
        }
        String xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etags[0]
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + etags[1] + "</ETag></Part></CompleteMultipartUpload>";
        assertEquals(200, f.call("POST", "/bkt/parts", "uploadId=" + m.group(1), xml.getBytes()).status);
        long total = p1.length + p2.length;
        try (ClientMemory mem = f.memory(p2.length)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/parts?partNumber=2", 0, p2.length);
            assertEquals(200, p.response().status, p.response().text());
            assertEquals("bytes " + p1.length + "-" + (total - 1) + "/" + total, p.response().header("Content-Range"));
            assertEquals("2", p.response().header("x-amz-mp-parts-count"));
            TestResponse ready = f.run(p);
            assertEquals(200, ready.status, ready.text());
            assertArrayEquals(p2, mem.segment().asSlice(0, p2.length).toArray(ValueLayout.JAVA_BYTE));
        }
        try (ClientMemory mem = f.memory(100)) {
            // offset and size are inside the part: part 1's bytes 1000..1099
            TestResponse ready = f.run(f.prepare(Op.GET, mem, "/bkt/parts?partNumber=1", 1000, 100));
            assertEquals(200, ready.status, ready.text());
            assertArrayEquals(Arrays.copyOfRange(p1, 1000, 1100), mem.segment().asSlice(0, 100)
                    .toArray(ValueLayout.JAVA_BYTE));
            assertError(f.prepare(Op.GET, mem, "/bkt/parts?partNumber=2", p2.length - 50, 100).response(), 416,
                    "InvalidRange");
            assertError(f.prepare(Op.GET, mem, "/bkt/parts?partNumber=3", 0, 100).response(), 416, "InvalidPartNumber");
        }
        // a single put is part 1 of 1: the whole object, Content-Range but no parts count (as S3)
        byte[] single = random(4096, 322);
        putHttp("single", single);
        try (ClientMemory mem = f.memory(4096)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/single?partNumber=1", 0, 4096);
            assertEquals("bytes 0-4095/4096", p.response().header("Content-Range"));
            assertEquals(null, p.response().header("x-amz-mp-parts-count"));
            assertEquals(200, f.run(p).status);
            assertArrayEquals(single, mem.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));
        }
        assertEquals(0, f.core.liveSessions(), "no refused PREPARE left a session");
    }

    /** PREPARE headers with one replaced (value null: removed). */
    private TestResponse prepareWith(String name, String value) throws Exception {
        try (ClientMemory mem = f.memory(4096)) {
            RcTransfer tr = f.rc.begin(Op.GET, mem, 0, 4096);
            try {
                String[][] h = {{RdmaHeaders.OP, "GET"}, {RdmaHeaders.TARGET, "/bkt/e"}, {RdmaHeaders.SIZE, "4096"},
                    {RdmaHeaders.OFFSET, "0"}, {RdmaHeaders.PSN, Integer.toHexString(tr.psn())},
                    {RdmaHeaders.COOKIE, Integer.toHexString(tr.cookie())}, {RdmaHeaders.TOKEN, tr.token()},
                    {RdmaHeaders.CHANNEL_KEY, HexFormat.of().formatHex(tr.channelKey())}};
                java.util.List<String> flat = new java.util.ArrayList<>(List.of(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL));
                boolean replaced = false;
                for (String[] kv : h) {
                    if (kv[0].equals(name)) {
                        replaced = true;
                        if (value == null) {
                            continue;
                        }
                        flat.add(kv[0]);
                        flat.add(value);
                    } else {
                        flat.add(kv[0]);
                        flat.add(kv[1]);
                    }
                }
                if (!replaced && value != null) {
                    flat.add(name);
                    flat.add(value);
                }
                if (name.equals(RdmaHeaders.PROTOCOL)) {
                    flat.subList(0, 2).clear();
                    if (value != null) {
                        flat.add(0, value);
                        flat.add(0, RdmaHeaders.PROTOCOL);
                    }
                }
                return f.call("POST", "/.hipobj-rc/prepare", "", new byte[0], flat.toArray(String[]::new));
            } finally {
                tr.close();
            }
        }
    }

    @Test
    void prepareErrorRows() throws Exception {
        putHttp("e", random(4096, 400));
        TestResponse noProtocol = prepareWith(RdmaHeaders.PROTOCOL, null);
        assertError(noProtocol, 501, "NotImplemented");
        assertEquals("unsupported", noProtocol.header(RdmaHeaders.PROTOCOL_STATUS));
        assertError(prepareWith(RdmaHeaders.PROTOCOL, "hipobj-rc-v1"), 501, "NotImplemented");
        String[][] bad = {{RdmaHeaders.OP, "POST"}, {RdmaHeaders.OP, null}, {RdmaHeaders.TARGET, "bkt/e"},
            {RdmaHeaders.TARGET, "/bkt"}, {RdmaHeaders.TARGET, "/bkt/e?acl"}, {RdmaHeaders.TARGET, "/bkt/e?uploadId=1"},
            {RdmaHeaders.SIZE, "0"}, {RdmaHeaders.SIZE, "-1"}, {RdmaHeaders.SIZE, "0x10"}, {RdmaHeaders.SIZE, null},
            {RdmaHeaders.OFFSET, "x"}, {RdmaHeaders.PSN, "0"}, {RdmaHeaders.PSN, "1000000"}, {RdmaHeaders.PSN, "zz"},
            {RdmaHeaders.COOKIE, "-1"}, {RdmaHeaders.COOKIE, "100000000"},
            // hipObject's client may declare its MR in PREPARE: both headers or neither (cookie 0 is legal)
            {RdmaHeaders.MR_ADDR, "1000"}, {RdmaHeaders.MR_RKEY, "1"}, {RdmaHeaders.TOKEN, "abc"},
            {RdmaHeaders.TOKEN, null}, {RdmaHeaders.CHANNEL_KEY, null}, {RdmaHeaders.CHANNEL_KEY, "0011"},
            {RdmaHeaders.CHANNEL_KEY, "not-hex"},
            // hex is ASCII hex digits only: no sign, no fullwidth or other Unicode digits (RcHeadersFuzzTest)
            {RdmaHeaders.PSN, "+1"}, {RdmaHeaders.COOKIE, "+deadbeef"}, {RdmaHeaders.PSN, "\uFF11"}};
        for (String[] b : bad) {
            assertError(prepareWith(b[0], b[1]), 400, "InvalidRdmaRequest");
        }
        assertError(prepareWith(RdmaHeaders.SIZE, String.valueOf(1L << 31)), 413, "EntityTooLarge");
        assertError(prepareWith(RdmaHeaders.TARGET, "/bkt/missing"), 404, "NoSuchKey");
        assertError(prepareWith(RdmaHeaders.OFFSET, "1"), 416, "InvalidRange");
        assertEquals(0, f.core.liveSessions(), "no refused PREPARE left a session");
    }

    @Test
    void anUnsignedRdmaHeaderIs403() throws Exception {
        TestRequest r = SdkSigner.sign("POST", "/.hipobj-rc/cancel", "", new byte[0], SdkSigner.Body.UNSIGNED,
                Instant.now(), RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        r.header(RdmaHeaders.SESSION, "0123456789abcdef0123456789abcdef");
        assertError(f.call(r), 403, "AccessDenied");
    }

    @Test
    void readyAndCancelOfUnknownAndForeignSessions() throws Exception {
        byte[] data = random(4096, 500);
        putHttp("own", data);
        try (ClientMemory mem = f.memory(4096)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/own", 0, 4096);
            assertEquals(200, p.response().status);
            // another principal: READY answers as for an unknown session, CANCEL as idempotent; neither touches it
            TestResponse foreign = f.ready(RdmaFixture.OTHER_AK, RdmaFixture.OTHER_SECRET, p);
            assertError(foreign, 404, "NoSuchRdmaSession");
            assertEquals(204, f.cancel(RdmaFixture.OTHER_AK, RdmaFixture.OTHER_SECRET, p.session().hex()).status);
            assertEquals(SessionState.PREPARED, f.core.detail(p.session()).orElseThrow().state());
            TestResponse unknown = f.cancel(SdkSigner.AK, SdkSigner.SECRET, "0123456789abcdef0123456789abcdef");
            assertEquals(204, unknown.status, "CANCEL of an unknown session is idempotent");
            // the owner still completes it
            TestResponse ready = f.run(p);
            assertEquals(200, ready.status, ready.text());
            assertArrayEquals(data, mem.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));
            Prepared gone = new Prepared(p.response(), f.rc.begin(Op.GET, mem, 0, 4096), p.prepare());
            assertError(f.ready(SdkSigner.AK, SdkSigner.SECRET, gone), 404, "NoSuchRdmaSession");
            gone.transfer().close();
        }
        TestRequest malformed = SdkSigner.sign("POST", "/.hipobj-rc/ready", "", new byte[0], SdkSigner.Body.UNSIGNED,
                Instant.now(), RdmaFixture.rcHeaders(RdmaHeaders.SESSION, "xyz", RdmaHeaders.COOKIE, "1",
                        RdmaHeaders.QPN, "1"));
        assertError(f.call(malformed), 400, "InvalidRdmaRequest");
    }

    @Test
    void ownerCancelEndsTheSessionOnce() throws Exception {
        putHttp("c", random(4096, 600));
        try (ClientMemory mem = f.memory(4096)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/c", 0, 4096);
            assertEquals(204, f.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            assertEquals(204, f.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            await("ended", () -> endsOf(p.session().hex()).size() == 1);
            assertEquals(TerminalReason.CANCELLED, endsOf(p.session().hex()).get(0).reason());
            p.transfer().close();
        }
    }

    @Test
    void aSecondReadyWhileTheFirstRunsIs409() throws Exception {
        byte[] data = random(4096, 700);
        try (ClientMemory mem = f.memory(4096)) {
            MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
            Prepared p = f.prepare(Op.PUT, mem, "/bkt/twice", 0, 4096);
            CompletableFuture<TestResponse> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return f.ready(SdkSigner.AK, SdkSigner.SECRET, p);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await("READY claimed it", () -> f.core.detail(p.session()).map(d -> d.state() != SessionState.PREPARED)
                    .orElse(true));
            assertError(f.ready(SdkSigner.AK, SdkSigner.SECRET, p), 409, "RdmaSessionConflict");
            org.objrdma.client.RcOutcome outcome = p.transfer().start(p.prepare()).get(10, TimeUnit.SECONDS);
            assertTrue(outcome.ok(), outcome.toString()); // strict: the acknowledgement survives the teardown
            assertEquals(200, first.get(10, TimeUnit.SECONDS).status);
            p.transfer().close();
        }
        assertArrayEquals(data, f.call("GET", "/bkt/twice", "", null).bytes());
    }

    @Test
    void aPerPrincipalSessionLimitIs429() throws Exception {
        f.close();
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> b.maxUserSessions(1));
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        try (ClientMemory mem = f.memory(4096); ClientMemory mem2 = f.memory(4096)) {
            Prepared p = f.prepare(Op.PUT, mem, "/bkt/l1", 0, 4096);
            assertEquals(200, p.response().status);
            Prepared q = f.prepare(Op.PUT, mem2, "/bkt/l2", 0, 4096);
            assertError(q.response(), 429, "RdmaResourceLimit");
            assertEquals(204, f.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            p.transfer().close();
        }
    }

    @Test
    void aClientGoneMidPutTimesOutWith504AndCommitsNothing() throws Exception {
        f.close();
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> b.execTimeoutMs(500));
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        putHttp("keep", random(100, 800));
        try (ClientMemory mem = f.memory(4096)) {
            Prepared p = f.prepare(Op.PUT, mem, "/bkt/keep", 0, 4096);
            p.transfer().close(); // the client is gone before it wrote a byte
            TestResponse ready = f.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertTrue(ready.status == 504 || ready.status == 502, ready.text());
            await("ended once", () -> endsOf(p.session().hex()).size() == 1);
            Thread.sleep(100);
            assertEquals(1, endsOf(p.session().hex()).size());
            assertFalse(endsOf(p.session().hex()).get(0).reason() == TerminalReason.COMPLETED);
        }
        assertArrayEquals(random(100, 800), f.call("GET", "/bkt/keep", "", null).bytes(), "nothing committed");
    }

    @Test
    void aClientGoneMidGetIs502AndTheSessionEndsOnce() throws Exception {
        byte[] data = random(8 << 20, 900);
        putHttp("big", data);
        try (ClientMemory mem = f.memory(data.length)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/big", 0, data.length);
            p.transfer().start(p.prepare());
            p.transfer().close(); // connected, then gone: the server's WRITE has no peer
            TestResponse ready = f.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertTrue(ready.status == 502 || ready.status == 504, ready.text());
            await("ended once", () -> endsOf(p.session().hex()).size() == 1);
            Thread.sleep(100);
            assertEquals(1, endsOf(p.session().hex()).size());
        }
    }

    @Test
    void withoutASessionManagerOrShuttingDownIs503() throws Exception {
        try (ClientMemory mem = f.memory(4096)) {
            putHttp("s", random(4096, 1000));
            f.core.shutdown(Duration.ofSeconds(1));
            assertError(f.prepare(Op.GET, mem, "/bkt/s", 0, 4096).response(), 503, "RdmaServiceUnavailable");
        }
        f.close();
        f = new RdmaFixture(RdmaSettings.DEFAULTS, false);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        try (ClientMemory mem = f.memory(4096)) {
            assertError(f.prepare(Op.PUT, mem, "/bkt/s", 0, 4096).response(), 503, "RdmaServiceUnavailable");
        }
    }
}
