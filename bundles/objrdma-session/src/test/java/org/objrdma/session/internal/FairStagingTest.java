package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.testsupport.FakeTransport;

/**
 * Issue 12, finding 5, through the session manager and the real staging pool with their default limits
 * ({@code max.user.sessions} = {@code max.buffers.per.class} = 256): one principal's 256 one-byte PREPAREs
 * no longer take the whole 4 KiB class, so another principal's small GET still gets a buffer.
 */
class FairStagingTest {

    @Test
    void onePrincipalsTinyPreparesDoNotStarveAnothersSmallGet() {
        FakeTransport transport = new FakeTransport("loop");
        BufferPool pool = BufferPool.create(StagingSettings.defaults(), transport, () -> Telemetry.NOOP);
        SessionCore core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).controlPlaneOnly(true).build(), FakeClock.atMillis(1_000_000)::millis,
                RandomSource.secure());
        core.useTransport(transport);
        core.useStagingPool(pool);
        PrincipalId mallory = PrincipalId.fromCanonical("mallory:secret");
        try {
            List<SessionId> hers = new ArrayList<>();
            int limited = 0;
            for (int i = 0; i < 256; i++) {
                SessionResult<org.objrdma.api.session.PrepareResponse> r = core.prepare(new PrepareRequest(mallory,
                        Op.GET, "/b/tiny" + i, 0, 1, Harness.PSN, Harness.COOKIE, null, null));
                if (r.isOk()) {
                    hers.add(r.value().sessionId());
                } else {
                    assertEquals(RcStatus.LIMIT, r.status());
                    limited++;
                }
            }
            assertEquals(64, hers.size(), "her share of the 4 KiB class (max.buffers.per.principal.per.class)");
            assertEquals(192, limited);
            SessionResult<org.objrdma.api.session.PrepareResponse> bobs = core.prepare(new PrepareRequest(Harness.BOB,
                    Op.GET, "/b/small", 0, 512, Harness.PSN, Harness.COOKIE, null, null));
            assertEquals(RcStatus.OK, bobs.status(), "another principal's small GET is served");
            assertEquals(4096, core.snapshot().stream().filter(s -> s.sessionId().equals(bobs.value().sessionId()))
                    .findFirst().orElseThrow().stagingBytes());
            for (SessionId id : hers) {
                assertEquals(RcStatus.OK, core.cancel(id, mallory));
            }
            assertEquals(RcStatus.OK, core.cancel(bobs.value().sessionId(), Harness.BOB));
            assertEquals(0, pool.stats().borrowed());
        } finally {
            core.shutdown(Duration.ofMillis(200));
            pool.close();
        }
    }
}
