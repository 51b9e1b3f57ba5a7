package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
import org.objrdma.s3.rdma.RdmaSettings.ForeignSessions;
import org.objrdma.session.internal.NodeFleet;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Forward mode ({@code rdma.foreign.sessions = forward}): node a owns the sessions and serves HTTP on a real
 * loopback socket ({@link LoopbackHttpFront}); node b receives the client's READY and CANCEL, sends them to a as
 * signed (the client's {@code Host: 127.0.0.1:8181}, not a's port, so a's signature check proves the headers
 * went through untouched) and relays a's answer. Node b knows {@link RdmaFixture#OTHER_AK} with another secret
 * than a, so a request b accepts can still fail a's check.
 */
class NodeForwardingTest {
    private static final String B_SECRET_OF_OTHER_AK = "aSecretOnlyNodeBHoldsForTheOtherKey00000";
    private static final Duration CONNECT = Duration.ofSeconds(2);
    private static final Duration READ = Duration.ofSeconds(20);

    private RdmaFixture a;
    private LoopbackHttpFront aFront;
    private RdmaFixture b;

    @BeforeEach
    void start() throws Exception {
        a = new RdmaFixture(RdmaSettings.DEFAULTS, true);
        aFront = new LoopbackHttpFront(a.gateway);
        b = forwardingNode(READ);
        String nodes = "a=" + aFront.endpoint() + ",b=http://127.0.0.1:9";
        a.core.useFleet(NodeFleet.parse("a", nodes));
        b.core.useFleet(NodeFleet.parse("b", nodes));
        assertEquals(200, a.call("PUT", "/bkt", "", new byte[0]).status);
    }

    private static RdmaFixture forwardingNode(Duration readTimeout) throws Exception {
        return new RdmaFixture(RdmaSettings.DEFAULTS.withForeignSessions(ForeignSessions.FORWARD, CONNECT, readTimeout),
                true, s -> { }, creds -> EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET,
                        RdmaFixture.OTHER_AK, B_SECRET_OF_OTHER_AK)));
    }

    @AfterEach
    void stop() throws Exception {
        RcRoutesTest.await("a has no live session", () -> a.core.liveSessions() == 0);
        aFront.close();
        a.close();
        b.close();
    }

    private static TestResponse cancelTo(RdmaFixture node, String ak, String secret, String session, byte[] body,
            String... more) throws Exception {
        String[] headers = RdmaFixture.rcHeaders(RdmaHeaders.SESSION, session);
        String[] all = java.util.stream.Stream.concat(List.of(headers).stream(), List.of(more).stream())
                .toArray(String[]::new);
        return node.call(SdkSigner.signAs(ak, secret, "127.0.0.1", "POST", "/.hipobj-rc/cancel", "x-id=1", body,
                SdkSigner.Body.UNSIGNED, Instant.now(), all));
    }

    /** The READY answer's headers a client reads, which must not depend on the node the client sent it to. */
    private static void assertSameRcAnswer(TestResponse direct, TestResponse relayed) {
        assertEquals(direct.status, relayed.status, relayed.text());
        for (String h : List.of(RdmaHeaders.PROTOCOL, RdmaHeaders.BYTES_TRANSFERRED, RdmaHeaders.ETAG,
                RdmaHeaders.VERSION_ID)) {
            assertNotNull(direct.header(h), h);
            assertEquals(direct.header(h), relayed.header(h), h);
        }
        assertEquals(direct.bytes().length, relayed.bytes().length, "bodies");
    }

    @Test
    void readyOfAnotherNodesGetIsForwardedAndItsAnswerRelayed() throws Exception {
        byte[] data = random(1 << 20, 21);
        assertEquals(200, a.call("PUT", "/bkt/obj", "", data).status);
        TestResponse direct;
        try (ClientMemory mem = a.memory(data.length)) {
            direct = a.run(a.prepare(Op.GET, mem, "/bkt/obj", 0, data.length));
            assertEquals(200, direct.status, direct.text());
        }
        try (ClientMemory mem = a.memory(data.length)) {
            Prepared p = a.prepare(Op.GET, mem, "/bkt/obj", 0, data.length);
            assertEquals(200, p.response().status, p.response().text());
            CompletableFuture<RcOutcome> arrival = p.transfer().start(p.prepare());
            TestResponse relayed = b.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertEquals(200, relayed.status, relayed.text());
            assertTrue(arrival.get(20, TimeUnit.SECONDS).ok());
            p.transfer().close();
            assertArrayEquals(data, mem.segment().asSlice(0, data.length).toArray(ValueLayout.JAVA_BYTE));
            assertSameRcAnswer(direct, relayed);
            assertEquals(String.format("%08X", p.transfer().cookie()), relayed.header(RdmaHeaders.COOKIE));
            assertEquals(aFront.endpoint().toString(), relayed.header("x-objrdma-forwarded-to"));
            assertNull(relayed.header("Location"));
            assertEquals(List.of("POST null"), aFront.requests, "one request reached a, no query");
            assertEquals(0, b.core.liveSessions(), "b held nothing");
        }
    }

    @Test
    void readyOfAnotherNodesPutIsForwardedAndTheObjectCommittedThere() throws Exception {
        byte[] data = random(256 << 10, 22);
        try (ClientMemory mem = a.memory(data.length)) {
            mem.segment().asSlice(0, data.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(data));
            Prepared p = a.prepare(Op.PUT, mem, "/bkt/put", 0, data.length);
            assertEquals(200, p.response().status, p.response().text());
            CompletableFuture<RcOutcome> sent = p.transfer().start(p.prepare());
            TestResponse relayed = b.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertEquals(200, relayed.status, relayed.text());
            assertTrue(sent.get(20, TimeUnit.SECONDS).ok());
            p.transfer().close();
            TestResponse stored = a.call("GET", "/bkt/put", "", null);
            assertArrayEquals(data, stored.bytes());
            assertEquals(stored.header("ETag"), relayed.header("ETag"));
            assertEquals(stored.header("ETag"), relayed.header(RdmaHeaders.ETAG));
            assertEquals(String.valueOf(data.length), relayed.header(RdmaHeaders.BYTES_TRANSFERRED));
        }
    }

    @Test
    void cancelIsForwardedWithItsQueryAndTheSessionIsGoneOnTheOwner() throws Exception {
        assertEquals(200, a.call("PUT", "/bkt/obj", "", random(4096, 23)).status);
        try (ClientMemory mem = a.memory(4096)) {
            Prepared p = a.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            assertEquals(1, a.core.liveSessions());
            TestResponse relayed = cancelTo(b, SdkSigner.AK, SdkSigner.SECRET, p.session().hex(), new byte[0]);
            assertEquals(204, relayed.status, relayed.text());
            assertEquals(RdmaHeaders.RC_PROTOCOL, relayed.header(RdmaHeaders.PROTOCOL));
            assertEquals(List.of("POST x-id=1"), aFront.requests);
            RcRoutesTest.await("the session is gone on a", () -> a.core.liveSessions() == 0);
            assertEquals(404, a.ready(SdkSigner.AK, SdkSigner.SECRET, p).status, "READY after the forwarded CANCEL");
            p.transfer().close();
        }
    }

    @Test
    void ownerDownIs502AndNothingChanges() throws Exception {
        assertEquals(200, a.call("PUT", "/bkt/obj", "", random(4096, 24)).status);
        try (ClientMemory mem = a.memory(4096)) {
            Prepared p = a.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            aFront.close(); // a's HTTP side is gone; its session core still holds the session
            TestResponse ready = b.ready(SdkSigner.AK, SdkSigner.SECRET, p);
            assertEquals(502, ready.status, ready.text());
            assertTrue(ready.text().contains("<Code>RdmaSessionOwnerUnreachable</Code>"), ready.text());
            TestResponse cancel = cancelTo(b, SdkSigner.AK, SdkSigner.SECRET, p.session().hex(), new byte[0]);
            assertEquals(502, cancel.status, cancel.text());
            assertEquals(1, a.core.liveSessions(), "a's session untouched");
            assertEquals(0, b.core.liveSessions(), "b holds nothing");
            assertEquals(204, a.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            p.transfer().close();
        }
    }

    @Test
    void theOwnersSignatureRefusalIsRelayed() throws Exception {
        assertEquals(200, a.call("PUT", "/bkt/obj", "", random(4096, 25)).status);
        try (ClientMemory mem = a.memory(4096)) {
            Prepared p = a.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            // b verifies OTHER_AK with its own secret and forwards; a holds another secret for it and refuses
            TestResponse relayed = cancelTo(b, RdmaFixture.OTHER_AK, B_SECRET_OF_OTHER_AK, p.session().hex(),
                    new byte[0]);
            assertEquals(403, relayed.status, relayed.text());
            assertTrue(relayed.text().contains("<Code>SignatureDoesNotMatch</Code>"), relayed.text());
            assertTrue(relayed.text().contains("<RequestId>" + relayed.header("x-amz-request-id") + "</RequestId>"),
                    "the owner's request id and document: " + relayed.text());
            assertEquals("application/xml", relayed.header("Content-Type"));
            assertEquals(aFront.endpoint().toString(), relayed.header("x-objrdma-forwarded-to"));
            assertEquals(1, aFront.requests.size());
            assertEquals(1, a.core.liveSessions(), "a's session untouched");
            assertEquals(204, a.cancel(SdkSigner.AK, SdkSigner.SECRET, p.session().hex()).status);
            p.transfer().close();
        }
    }

    @Test
    void aForwardedRequestIsNeverForwardedAgain() throws Exception {
        String ofA = NodeFleet.tag("a") + "0123456789abcdef01234567";
        TestResponse r = cancelTo(b, SdkSigner.AK, SdkSigner.SECRET, ofA, new byte[0],
                "x-objrdma-forwarded-by", "10.9.9.9");
        assertEquals(307, r.status, r.text());
        assertEquals(aFront.endpoint() + "/.hipobj-rc/cancel?x-id=1", r.header("Location"));
        assertEquals(List.of(), aFront.requests, "nothing reached a");
    }

    @Test
    void aBodyAbove64KiBIsRefusedWithoutForwarding() throws Exception {
        assertEquals(200, a.call("PUT", "/bkt/obj", "", random(4096, 26)).status);
        try (ClientMemory mem = a.memory(4096)) {
            Prepared p = a.prepare(Op.GET, mem, "/bkt/obj", 0, 4096);
            assertEquals(200, p.response().status, p.response().text());
            TestResponse r = cancelTo(b, SdkSigner.AK, SdkSigner.SECRET, p.session().hex(), new byte[(64 << 10) + 1]);
            assertEquals(413, r.status, r.text());
            assertTrue(r.text().contains("<Code>EntityTooLarge</Code>"), r.text());
            assertEquals(List.of(), aFront.requests, "nothing reached a");
            assertEquals(1, a.core.liveSessions(), "a's session untouched");
            TestResponse atLimit = cancelTo(b, SdkSigner.AK, SdkSigner.SECRET, p.session().hex(), new byte[64 << 10]);
            assertEquals(204, atLimit.status, atLimit.text());
            p.transfer().close();
        }
    }

    @Test
    void anOwnerThatDoesNotAnswerIs504() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RdmaFixture impatient = forwardingNode(Duration.ofMillis(300))) {
            impatient.core.useFleet(NodeFleet.parse("b", "b=http://127.0.0.1:9,c=http://127.0.0.1:"
                    + silent.getLocalPort()));
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return silent.accept(); // reads nothing, answers nothing
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            String ofC = NodeFleet.tag("c") + "0123456789abcdef01234567";
            TestResponse r = cancelTo(impatient, SdkSigner.AK, SdkSigner.SECRET, ofC, new byte[0]);
            assertEquals(504, r.status, r.text());
            assertTrue(r.text().contains("<Code>RdmaSessionOwnerTimeout</Code>"), r.text());
            accepted.get(5, TimeUnit.SECONDS).close();
        }
    }
}
