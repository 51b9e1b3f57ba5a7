package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.wire.AgentKeys;

/**
 * Issue 12, agent keys on the gateway's cuObject routes: the facade dials the client's memory agent with the agent
 * key of the principal whose signed request it serves ({@code AgentKeys.forPrincipal(secret)}), never a shared
 * {@code agent.key} — so the routes work on a facade that has none, an agent keyed for principal A serves only
 * A-signed requests, and an agent holding the old shared key is never dialed with it. Real TCP transports, the
 * real gateway and facade; every refusal is followed by reads proving nothing moved.
 */
class CuObjPrincipalRoutesTest {

    private static final int SIZE = 64 << 10;
    private static final byte CLIENT_FILL = 0x3c;
    private RdmaFixture f;

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            // the pipeline gives its leases back before the answer; wait anyway rather than race the counters
            RdmaFixture fixture = f;
            awaitTrue("staging back to zero", () -> fixture.pool.stats().borrowed() == 0);
            assertEquals(0, f.cuObj.allocatedChannelCount(), "facade channels freed");
            f.close();
        }
    }

    private void start(byte[] sharedAgentKey) throws Exception {
        f = new RdmaFixture(new RdmaSettings(1, 16 << 10), true, b -> { }, sharedAgentKey);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        assertEquals(200, asOther("PUT", "/other", null).status, "B has a bucket of its own");
    }

    private TestResponse asOther(String method, String path, byte[] body, String... headers) throws Exception {
        return f.call(SdkSigner.signAs(RdmaFixture.OTHER_AK, RdmaFixture.OTHER_SECRET, "127.0.0.1", method, path, "",
                body, SdkSigner.Body.UNSIGNED, Instant.now(), headers));
    }

    private ClientMemory filledMemory() throws Exception {
        ClientMemory mem = f.memory(SIZE);
        mem.segment().fill(CLIENT_FILL);
        return mem;
    }

    private static boolean untouched(ClientMemory mem) {
        for (long i = 0; i < SIZE; i++) {
            if (mem.segment().get(ValueLayout.JAVA_BYTE, i) != CLIENT_FILL) {
                return false;
            }
        }
        return true;
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void withoutASharedAgentKeyTheRoutesServeEachPrincipalWithItsOwnKey() throws Exception {
        start(null); // no agent.key on the facade: per-principal mode
        byte[] data = CuObjRoutesTest.random(SIZE, 1);
        try (ClientMemory mem = f.memory(SIZE)) {
            MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, SIZE);
            String put = f.agent.descriptor(mem, 0, SIZE, Op.PUT).descriptor().format();
            TestResponse p = f.call("PUT", "/bkt/a", "", new byte[0], RdmaHeaders.TOKEN, put);
            assertEquals(200, p.status, p.text());
            assertEquals("200", p.header(RdmaHeaders.REPLY));
        }
        TestResponse plain = f.call("GET", "/bkt/a", "", null);
        assertArrayEquals(data, plain.bytes(), "the PUT stored the agent's bytes exactly");
        try (ClientMemory mem = filledMemory()) {
            String get = f.agent.descriptor(mem, 0, SIZE, Op.GET).descriptor().format();
            TestResponse g = f.call("GET", "/bkt/a", "", null, RdmaHeaders.TOKEN, get);
            assertEquals(200, g.status, g.text());
            assertEquals("200", g.header(RdmaHeaders.REPLY));
            assertEquals(String.valueOf(SIZE), g.header(RdmaHeaders.BYTES_TRANSFERRED));
            assertArrayEquals(data, mem.segment().asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE), "byte-exact GET");
        }
    }

    @Test
    void anAgentKeyedForAServesNoRequestSignedByB() throws Exception {
        start(null);
        byte[] bData = CuObjRoutesTest.random(SIZE, 2);
        assertEquals(200, asOther("PUT", "/other/b", bData).status);
        try (ClientMemory mem = filledMemory()) {
            // B signs a GET of its own object into A's agent memory: the facade dials A's lane with B's key
            String aGet = f.agent.descriptor(mem, 0, SIZE, Op.GET).descriptor().format();
            TestResponse g = asOther("GET", "/other/b", null, RdmaHeaders.TOKEN, aGet);
            assertEquals(502, g.status, g.text());
            assertTrue(g.text().contains("RDMATransferFailed"), g.text());
            assertNull(g.header(RdmaHeaders.BYTES_TRANSFERRED));
            assertTrue(untouched(mem), "no byte was written into A's memory");

            // B signs a PUT whose descriptor names A's memory: nothing is read, nothing committed
            String aPut = f.agent.descriptor(mem, 0, SIZE, Op.PUT).descriptor().format();
            TestResponse p = asOther("PUT", "/other/stolen", new byte[0], RdmaHeaders.TOKEN, aPut);
            assertEquals(500, p.status, p.text());
            assertTrue(p.text().contains("RDMATransferFailed"), p.text());
            TestResponse overwrite = asOther("PUT", "/other/b", new byte[0], RdmaHeaders.TOKEN,
                    f.agent.descriptor(mem, 0, SIZE, Op.PUT).descriptor().format());
            assertEquals(500, overwrite.status, overwrite.text());
        }
        assertEquals(404, asOther("GET", "/other/stolen", null).status, "a failed PUT commits nothing");
        assertArrayEquals(bData, asOther("GET", "/other/b", null).bytes(), "B's object is intact");

        // A's own requests on the same agent still work: the failed dials left nothing behind for A
        byte[] aData = CuObjRoutesTest.random(SIZE, 3);
        assertEquals(200, f.call("PUT", "/bkt/a", "", aData).status);
        try (ClientMemory mem = filledMemory()) {
            TestResponse g = f.call("GET", "/bkt/a", "", null, RdmaHeaders.TOKEN,
                    f.agent.descriptor(mem, 0, SIZE, Op.GET).descriptor().format());
            assertEquals(200, g.status, g.text());
            assertArrayEquals(aData, mem.segment().asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void anAgentHoldingTheSharedKeyGetsNothingFromTheRoutes() throws Exception {
        byte[] shared = AgentKeys.generate();
        start(shared); // the facade has a shared key; the routes must still never present it
        byte[] data = CuObjRoutesTest.random(SIZE, 4);
        assertEquals(200, f.call("PUT", "/bkt/s", "", data).status);
        try (CuObjAgent sharedAgent = CuObjAgent.open(f.clientTransport, shared);
                ClientMemory mem = filledMemory()) {
            TestResponse g = f.call("GET", "/bkt/s", "", null, RdmaHeaders.TOKEN,
                    sharedAgent.descriptor(mem, 0, SIZE, Op.GET).descriptor().format());
            assertEquals(502, g.status, g.text());
            assertTrue(g.text().contains("RDMATransferFailed"), g.text());
            assertTrue(untouched(mem), "the shared-key agent's memory got no byte");
            TestResponse p = f.call("PUT", "/bkt/s", "", new byte[0], RdmaHeaders.TOKEN,
                    sharedAgent.descriptor(mem, 0, SIZE, Op.PUT).descriptor().format());
            assertEquals(500, p.status, p.text());
            assertTrue(p.text().contains("RDMATransferFailed"), p.text());
        }
        assertArrayEquals(data, f.call("GET", "/bkt/s", "", null).bytes(), "the object is intact");
    }
}
