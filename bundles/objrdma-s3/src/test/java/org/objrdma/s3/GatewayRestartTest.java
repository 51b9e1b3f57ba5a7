package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.crc32c;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Issue 17, the gateway restarted with multipart uploads in progress: the whole gateway (session core, staging
 * pool, transports, cuObject facade, the file store) is closed and opened again on the same store root, as a
 * restart of the objrdma bundles (or of Karaf) does: each component deactivates, the store closes, activation
 * opens it again on the same root. What the store README documents: uploads in progress are directories of
 * their own and survive; after the restart they are listed with their parts, take more parts (plain and over
 * hipobj-rc-v2), complete into exactly the bytes sent, or abort; no object becomes visible before its upload
 * completes, and a restart in the middle of an RDMA part leaves that part out (the part never arrived) rather
 * than half of it.
 */
class GatewayRestartTest {
    private Path root;
    private RdmaFixture f;

    private RdmaFixture open() throws Exception {
        RdmaFixture fixture = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> { },
                credentials -> EmbeddedStores.filesystem(root, credentials, 1L << 40, true));
        return fixture;
    }

    /** @param quiet whether everything must be returned before (false: a session is still prepared) */
    private void restart(boolean quiet) throws Exception {
        if (quiet) {
            new FaultAudit(f, root).check("before the restart");
        }
        f.close();
        f = open();
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            new FaultAudit(f, root).check("the end");
            f.close();
        }
        StoreFaultsTest.deleteTree(root);
    }

    @Test
    void uploadsInProgressSurviveARestartAndCompleteOrAbort() throws Exception {
        root = Files.createTempDirectory("objrdma-restart");
        f = open();
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        byte[] p1 = random(5 << 20, 41);
        byte[] p2 = random(3000, 42);
        String kept = StoreFaultsTest.uploadId(f.call("POST", "/bkt/kept", "uploads", new byte[0]));
        String dropped = StoreFaultsTest.uploadId(f.call("POST", "/bkt/dropped", "uploads", new byte[0]));
        String e1 = f.call("PUT", "/bkt/kept", "partNumber=1&uploadId=" + kept, p1).header("ETag");
        assertEquals(200, f.call("PUT", "/bkt/dropped", "partNumber=1&uploadId=" + dropped, p1).status);
        // an RDMA part that is prepared but never sent when the gateway goes away
        ClientMemory pending = f.memory(p2.length);
        RdmaFixture.Prepared orphan = f.prepare(Op.PUT, pending, "/bkt/kept?uploadId=" + kept + "&partNumber=2", 0,
                p2.length);
        assertEquals(200, orphan.response().status, orphan.response().text());
        orphan.transfer().close(); // the client gives up; its session is still PREPARED in the gateway
        pending.close();
        restart(false);

        String uploads = f.call("GET", "/bkt", "uploads", null).text();
        assertTrue(uploads.contains(kept) && uploads.contains(dropped), uploads);
        String parts = f.call("GET", "/bkt/kept", "uploadId=" + kept, null).text();
        assertTrue(parts.contains("<PartNumber>1</PartNumber>"), parts);
        assertFalse(parts.contains("<PartNumber>2</PartNumber>"), "the part that never arrived: " + parts);
        assertEquals(404, f.call("GET", "/bkt/kept", "", null).status, "nothing visible before completion");
        assertEquals(404, f.call("GET", "/bkt/dropped", "", null).status);

        // part 2 over hipobj-rc-v2 after the restart
        String e2;
        try (ClientMemory mem = f.memory(p2.length)) {
            MemorySegment.copy(p2, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, p2.length);
            TestResponse ready = f.run(f.prepare(Op.PUT, mem, "/bkt/kept?uploadId=" + kept + "&partNumber=2", 0,
                    p2.length));
            assertEquals(200, ready.status, ready.text());
            e2 = ready.header("ETag");
        }
        restart(true);

        byte[] xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + e1
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + e2 + "</ETag></Part></CompleteMultipartUpload>")
                .getBytes();
        TestResponse done = f.call("POST", "/bkt/kept", "uploadId=" + kept, xml);
        assertEquals(200, done.status, done.text());
        assertEquals(204, f.call("DELETE", "/bkt/dropped", "uploadId=" + dropped, null).status);

        restart(true);

        byte[] whole = new byte[p1.length + p2.length];
        System.arraycopy(p1, 0, whole, 0, p1.length);
        System.arraycopy(p2, 0, whole, p1.length, p2.length);
        assertEquals(crc32c(whole), crc32c(f.call("GET", "/bkt/kept", "", null).bytes()), "completed before the restart");
        assertEquals(404, f.call("GET", "/bkt/dropped", "", null).status);
        String after = f.call("GET", "/bkt", "uploads", null).text();
        assertFalse(after.contains(kept) || after.contains(dropped), after);
        String listing = f.call("GET", "/bkt", "list-type=2", null).text();
        assertTrue(listing.contains("<Key>kept</Key>") && !listing.contains("<Key>dropped</Key>"), listing);
    }
}
