package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.RdmaFixture.Prepared;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Issue 17, the security rows the README's threat-model table had no test for yet, through the gateway on the
 * real file store: a presigned URL that worked is refused once it expired; a staging grant used from another
 * client's channel is refused; a replayed READY (the very same signed request, after its session ended) moves nothing and
 * changes nothing; object keys that look like paths ({@code ../}, the store's own file names) are stored as keys and
 * never become paths, nothing appears outside the store root.
 */
class SecurityRowsTest {
    private Path dir;
    private Path root;
    private RdmaFixture f;

    private void start() throws Exception {
        dir = Files.createTempDirectory("objrdma-security");
        root = dir.resolve("store");
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> { },
                credentials -> EmbeddedStores.filesystem(root, credentials, 1L << 40, true));
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            new FaultAudit(f, root).check("the end");
            f.close();
        }
        StoreFaultsTest.deleteTree(dir);
    }

    @Test
    void aReplayedReadyMovesNothingAndChangesNothing() throws Exception {
        start();
        byte[] data = random(64 << 10, 51);
        assertEquals(200, f.call("PUT", "/bkt/get", "", data).status);
        // GET: the session ran; the same READY again finds no session and writes nothing into the client memory
        try (ClientMemory mem = f.memory(data.length)) {
            Prepared p = f.prepare(Op.GET, mem, "/bkt/get", 0, data.length);
            assertEquals(200, f.run(p).status);
            FaultAudit.await("the GET session ended", () -> f.core.liveSessions() == 0, () -> "");
            mem.segment().fill((byte) 0);
            TestResponse replay = f.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertEquals(404, replay.status, replay.text());
            assertTrue(replay.text().contains("<Code>NoSuchRdmaSession</Code>"), replay.text());
            assertEquals(0, mem.segment().asSlice(0, data.length).toArray(ValueLayout.JAVA_BYTE)[0]);
            assertEquals(1, new FaultAudit(f, root).endsOf(p.session().hex()), "one terminal notification");
        }
        // PUT: committed once; the object is overwritten over HTTP; the replayed READY does not bring back its bytes
        byte[] put = random(64 << 10, 52);
        byte[] later = "written later over HTTP".getBytes(StandardCharsets.US_ASCII);
        try (ClientMemory mem = f.memory(put.length)) {
            MemorySegment.copy(put, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, put.length);
            Prepared p = f.prepare(Op.PUT, mem, "/bkt/put", 0, put.length);
            assertEquals(200, f.run(p).status);
            assertEquals(200, f.call("PUT", "/bkt/put", "", later).status);
            TestResponse replay = f.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertEquals(404, replay.status, replay.text());
        }
        assertArrayEquals(later, f.call("GET", "/bkt/put", "", null).bytes(), "the replay changed nothing");
    }

    /**
     * A grant used from another channel, through the gateway: client B, holding a PUT session (and so a connected
     * channel) of its own, learns A's staging address and rkey from A's PREPARE answer and WRITEs to them over its own
     * channel. The write completes {@code REM_ACCESS_ERR}; A's PUT then commits exactly A's bytes.
     */
    @Test
    void aStagingGrantUsedFromAnotherChannelIsRefusedAndChangesNothing() throws Exception {
        start();
        int size = 64 << 10;
        byte[] mine = random(size, 53);
        byte[] forged = random(size, 54);
        try (ClientMemory a = f.memory(size); ClientMemory b = f.memory(size)) {
            MemorySegment.copy(mine, 0, a.segment(), ValueLayout.JAVA_BYTE, 0, size);
            MemorySegment.copy(forged, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, size);
            Prepared pa = f.prepare(Op.PUT, a, "/bkt/victim", 0, size);
            Prepared pb = f.prepare(Op.PUT, b, "/bkt/intruder", 0, size);
            assertEquals(200, pa.response().status, pa.response().text());
            assertEquals(200, pb.response().status, pb.response().text());
            Channel intruder = pb.transfer().channel();
            intruder.connect(pb.prepare().serverEndpoint());
            RemoteRegion theirs = pa.prepare().stagingRegion();
            BatchResult write = intruder.submit(List.of(WorkRequest.write(7, new ScatterGatherEntry(b.region(), 0, size),
                    theirs.address(), theirs.rkey())), java.time.Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
            assertEquals(WcStatus.REM_ACCESS_ERR, write.firstFailure().orElseThrow(
                    () -> new AssertionError("a write through another channel succeeded: " + write)).status());
            pb.transfer().close();
            assertEquals(204, f.cancel(SdkSigner.AK, SdkSigner.SECRET, pb.session().hex()).status);
            assertEquals(200, f.run(pa).status);
        }
        assertArrayEquals(mine, f.call("GET", "/bkt/victim", "", null).bytes(), "exactly the owner's bytes");
        assertEquals(404, f.call("GET", "/bkt/intruder", "", null).status, "the intruder's session stored nothing");
    }

    @Test
    void aPresignedUrlThatWorkedIsRefusedOnceItExpired() throws Exception {
        start();
        assertEquals(200, f.call("PUT", "/bkt/pre", "", "presigned".getBytes(StandardCharsets.US_ASCII)).status);
        java.time.Instant signedAt = java.time.Instant.now().minusSeconds(2);
        java.time.Duration validFor = java.time.Duration.ofSeconds(4);
        TestRequest url = SdkSigner.presign("GET", "/bkt/pre", signedAt, validFor);
        TestResponse first = f.call(url);
        assertEquals(200, first.status, first.text());
        java.time.Instant expired = signedAt.plus(validFor).plusSeconds(1);
        FaultAudit.await("the URL's expiry", () -> java.time.Instant.now().isAfter(expired), () -> "");
        TestResponse reused = f.call(SdkSigner.presign("GET", "/bkt/pre", signedAt, validFor));
        assertEquals(403, reused.status, reused.text());
        assertTrue(reused.text().contains("<Code>AccessDenied</Code>") && reused.text().contains("expired"),
                reused.text());
        assertEquals(200, f.call("PUT", "/bkt/pre", "", new byte[] {1}).status, "nothing else changed");
    }

    @Test
    void keysThatLookLikePathsStayKeysInsideTheRoot() throws Exception {
        start();
        List<String> keys = List.of("../../escaped", "../store/buckets/x", "a/../../../b", "../../../../etc/objrdma-x",
                "tmp", ".lock", "bucket.meta", "../tmp/x.put");
        for (int i = 0; i < keys.size(); i++) {
            byte[] body = ("object " + i).getBytes(StandardCharsets.US_ASCII);
            String path = "/bkt/" + keys.get(i);
            TestResponse put = f.call("PUT", path, "", body);
            assertEquals(200, put.status, keys.get(i) + ": " + put.text());
            assertArrayEquals(body, f.call("GET", path, "", null).bytes(), keys.get(i));
        }
        String listing = f.call("GET", "/bkt", "list-type=2", null).text();
        for (String key : keys) {
            assertTrue(listing.contains("<Key>" + key + "</Key>"), key + " in " + listing);
        }
        try (Stream<Path> outside = Files.list(dir)) {
            assertEquals(List.of(root), outside.toList(), "nothing written beside the store root");
        }
        try (Stream<Path> objects = Files.list(root.resolve("buckets/bkt/objects"))) {
            assertTrue(objects.allMatch(p -> p.getFileName().toString().matches("[0-9a-f]{64}")),
                    "every object file is named by the hash of its key");
        }
    }
}
