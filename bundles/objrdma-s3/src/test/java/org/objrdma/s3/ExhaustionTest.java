package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.crc32c;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.RdmaFixture.Prepared;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Issue 17, sessions and staging exhausted through the gateway's hipobj-rc-v2 routes: once a principal holds
 * all its sessions, or the staging bytes are all charged, PREPARE answers {@code 429 RdmaResourceLimit} and
 * nothing else changes (no session, no charge, no buffer); the held sessions still run to the end; afterwards
 * the refused request succeeds (recovery), and the {@link FaultAudit} finds nothing left. Three rounds each,
 * the first sets the thread and fd baseline.
 */
class ExhaustionTest {
    private static final int ROUNDS = 3;
    private RdmaFixture f;

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            f.close();
        }
    }

    private static void assertLimit(TestResponse r, String limit) {
        assertEquals(429, r.status, r.text());
        assertTrue(r.text().contains("<Code>RdmaResourceLimit</Code>"), r.text());
        assertTrue(r.text().contains(limit), "the 429 names " + limit + ": " + r.text());
    }

    /** Holds GET sessions of {@code size} bytes until the next is refused; runs them all; then one more is served. */
    private void exhaustRunAndRecover(int size, int expectHeld, String limit) throws Exception {
        byte[] data = random(size, size);
        assertEquals(200, f.call("PUT", "/bkt/o", "", data).status);
        FaultAudit audit = new FaultAudit(f, null);
        for (int round = 0; round < ROUNDS; round++) {
            List<ClientMemory> memories = new ArrayList<>();
            List<Prepared> held = new ArrayList<>();
            try {
                while (true) {
                    ClientMemory mem = f.memory(size);
                    memories.add(mem);
                    Prepared p = f.prepare(Op.GET, mem, "/bkt/o", 0, size);
                    if (p.response().status != 200) {
                        assertLimit(p.response(), limit);
                        break;
                    }
                    held.add(p);
                    assertTrue(held.size() <= expectHeld, "more held than the limit allows: " + held.size());
                }
                assertEquals(expectHeld, held.size(), "held at the limit");
                assertEquals(expectHeld, f.core.liveSessions(), "the refusal created no session");
                assertLimit(f.prepare(Op.GET, memories.get(memories.size() - 1), "/bkt/o", 0, size).response(), limit);
                for (int i = 0; i < held.size(); i++) {
                    TestResponse ready = f.run(held.get(i));
                    assertEquals(200, ready.status, ready.text());
                    assertEquals(crc32c(data), crc32c(memories.get(i).segment().asSlice(0, size)
                            .toArray(ValueLayout.JAVA_BYTE)), "held session " + i + " delivered its bytes");
                }
                // recovery: the request refused a moment ago is served now
                TestResponse again = f.run(f.prepare(Op.GET, memories.get(memories.size() - 1), "/bkt/o", 0, size));
                assertEquals(200, again.status, "recovered: " + again.text());
            } finally {
                memories.forEach(ClientMemory::close);
            }
            if (round == 0) {
                audit.baseline();
            } else {
                audit.check("exhaustion round " + round);
            }
        }
    }

    @Test
    void sessionsExhaustedAre429AndRecover() throws Exception {
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> b.maxUserSessions(4).maxUserQps(4));
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        exhaustRunAndRecover(4096, 4, "org.objrdma.session max.user.sessions reached");
    }

    @Test
    void stagingBytesExhaustedAre429AndRecover() throws Exception {
        // the staging pool is the one owner of staging bytes: 3 MiB in all and per principal, 1 MiB buffers
        StagingSettings d = StagingSettings.defaults();
        StagingSettings threeMiB = new StagingSettings(d.minBufferSize(), 1L << 20, 3L << 20, 3L << 20,
                d.maxBuffersPerClass(), d.maxBuffersPerPrincipalPerClass(), d.idlePerClass(), d.idleTimeout(),
                d.borrowWait(), d.leaseDeadline(), d.leaseCheckPeriod(), d.trackStacks(), d.shutdownTimeout(),
                d.scrubOnReturn());
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> { }, null, EmbeddedStores::inMemory, threeMiB);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        exhaustRunAndRecover(1 << 20, 3, "org.objrdma.staging max.total.bytes has no room for 1048576 staging bytes");
    }
}
