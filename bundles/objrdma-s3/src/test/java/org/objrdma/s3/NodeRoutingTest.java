package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.RcOutcome;
import org.objrdma.s3.RdmaFixture.Prepared;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.session.internal.NodeFleet;

/**
 * Session affinity across two gateways (two session cores, two TCP transports, two gateways) configured as
 * nodes b and c of one fleet: a READY or CANCEL of b's session sent to c is answered 307 to b with the same
 * path; following it succeeds; c's own, unknown-tag and malformed ids answer exactly as without a fleet.
 */
class NodeRoutingTest {
    private static final String NODES = "b=http://127.0.0.1:18001,c=http://gw-c.example:18002";

    private RdmaFixture b;
    private RdmaFixture c;

    @BeforeEach
    void start() throws Exception {
        b = new RdmaFixture(RdmaSettings.DEFAULTS, true);
        c = new RdmaFixture(RdmaSettings.DEFAULTS, true);
        b.core.useFleet(NodeFleet.parse("b", NODES));
        c.core.useFleet(NodeFleet.parse("c", NODES));
        assertEquals(200, b.call("PUT", "/bkt", "", new byte[0]).status);
    }

    @AfterEach
    void stop() throws Exception {
        RcRoutesTest.await("b has no live session", () -> b.core.liveSessions() == 0);
        b.close();
        c.close();
    }

    private static TestResponse readyTo(RdmaFixture node, Prepared p) throws Exception {
        return node.ready(SdkSigner.AK, SdkSigner.SECRET, p);
    }

    @Test
    void readyOnAnotherNodeIsRedirectedToTheOwnerAndFollowingItTransfers() throws Exception {
        byte[] data = random(1 << 20, 7);
        assertEquals(200, b.call("PUT", "/bkt/obj", "", data).status);
        try (ClientMemory mem = b.memory(data.length)) {
            Prepared p = b.prepare(Op.GET, mem, "/bkt/obj", 0, data.length);
            assertEquals(200, p.response().status, p.response().text());
            assertTrue(p.session().hex().startsWith(NodeFleet.tag("b")), p.session().hex());

            TestResponse redirected = readyTo(c, p);
            assertEquals(307, redirected.status, redirected.text());
            assertEquals("http://127.0.0.1:18001/.hipobj-rc/ready", redirected.header("Location"));
            assertEquals(RdmaHeaders.RC_PROTOCOL, redirected.header(RdmaHeaders.PROTOCOL));
            assertEquals(0, c.core.liveSessions(), "c holds nothing for b's session");
            assertEquals(1, b.core.liveSessions(), "the session still waits on b");

            CompletableFuture<RcOutcome> arrival = p.transfer().start(p.prepare());
            TestResponse ready = readyTo(b, p);
            assertEquals(200, ready.status, ready.text());
            assertTrue(arrival.get(20, TimeUnit.SECONDS).ok());
            assertArrayEquals(data, mem.segment().asSlice(0, data.length).toArray(ValueLayout.JAVA_BYTE));
            p.transfer().close();

            TestResponse again = readyTo(b, p);
            assertEquals(404, again.status, "b's own ended session is not redirected anywhere: " + again.text());
            assertNull(again.header("Location"));
        }
    }

    /** A request that came over https is never redirected to a node listed with a plain-http endpoint. */
    @Test
    void anHttpsRequestIsNotRedirectedToAPlainHttpOwner() throws Exception {
        assertEquals(200, b.call("PUT", "/bkt/obj", "", random(4096, 9)).status);
        try (ClientMemory mem = b.memory(4096)) {
            Prepared p = b.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            TestResponse refused = c.call(SdkSigner.sign("POST", "/.hipobj-rc/cancel", "", new byte[0],
                    SdkSigner.Body.UNSIGNED, Instant.now(), RdmaFixture.rcHeaders(RdmaHeaders.SESSION,
                            p.session().hex())).secure(true));
            assertEquals(400, refused.status, refused.text());
            assertNull(refused.header("Location"));
            assertTrue(refused.text().contains("not redirected to plain http"), refused.text());
            assertEquals(204, b.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            p.transfer().close();
        }
    }

    @Test
    void cancelOnAnotherNodeIsRedirectedWithItsQuery() throws Exception {
        assertEquals(200, b.call("PUT", "/bkt/obj", "", random(4096, 8)).status);
        try (ClientMemory mem = b.memory(4096)) {
            Prepared p = b.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            TestResponse redirected = c.call(SdkSigner.sign("POST", "/.hipobj-rc/cancel", "x-id=1", new byte[0],
                    SdkSigner.Body.UNSIGNED, Instant.now(), RdmaFixture.rcHeaders(RdmaHeaders.SESSION, p.session().hex())));
            assertEquals(307, redirected.status, redirected.text());
            assertEquals("http://127.0.0.1:18001/.hipobj-rc/cancel?x-id=1", redirected.header("Location"));
            assertEquals(1, b.core.liveSessions());
            assertEquals(204, b.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            p.transfer().close();
        }
    }

    @Test
    void ownUnknownAndMalformedIdsAnswerAsWithoutAFleet() throws Exception {
        String unknownTag = NodeFleet.tag("nobody") + "0123456789abcdef01234567";
        TestResponse ready = c.call(SdkSigner.sign("POST", "/.hipobj-rc/ready", "", new byte[0], SdkSigner.Body.UNSIGNED,
                Instant.now(), RdmaFixture.rcHeaders(RdmaHeaders.SESSION, unknownTag, RdmaHeaders.COOKIE, "1",
                        RdmaHeaders.QPN, "1")));
        assertEquals(404, ready.status, ready.text());
        assertTrue(ready.text().contains("NoSuchRdmaSession"), ready.text());
        assertEquals(204, c.cancel(SdkSigner.AK, SdkSigner.SECRET, unknownTag).status, "unknown: idempotent as ever");
        String ownTag = NodeFleet.tag("c") + "0123456789abcdef01234567";
        assertEquals(204, c.cancel(SdkSigner.AK, SdkSigner.SECRET, ownTag).status);
        TestResponse malformed = c.cancel(SdkSigner.AK, SdkSigner.SECRET, NodeFleet.tag("b") + "xyz");
        assertEquals(400, malformed.status, malformed.text());
        assertNull(malformed.header("Location"));
    }

    @Test
    void anUnauthenticatedReadyIsRefusedNotRedirected() throws Exception {
        String ofB = NodeFleet.tag("b") + "0123456789abcdef01234567";
        TestResponse r = c.cancel(SdkSigner.AK, "not-the-secret-of-this-access-key-000000", ofB);
        assertEquals(403, r.status, r.text());
        assertNull(r.header("Location"));
    }
}
