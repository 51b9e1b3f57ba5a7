package org.objrdma.session.internal.bench;

import java.lang.management.ManagementFactory;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.session.internal.MonotonicClock;
import org.objrdma.session.internal.RandomSource;
import org.objrdma.session.internal.SessionCore;
import org.objrdma.session.internal.SessionSettings;
import org.objrdma.testsupport.FakeTransport;

/**
 * Heap bytes one idle prepared session costs with 100 000 live, measured as the difference of used heap
 * after full collections (the MemoryMXBean after repeated {@code System.gc()}), before and after the
 * sessions exist. Staging is excluded: the slab is off-heap, and the per-lease objects the pool makes
 * are measured separately (the same number of leases borrowed without sessions) and subtracted, as is
 * the channel object the transport makes. The request objects (principal, target) are shared, as a
 * gateway's would mostly not be, so the figure is the core's own cost.
 */
public final class IdleSessionHeap {
    static final int SESSIONS = 100_000;

    private IdleSessionHeap() {
    }

    public static void main(String[] args) throws Exception {
        FakeTransport transport = FakeTransport.builder("inert").channels(FakeTransport.ChannelMode.INERT)
                .recording(false).checkArguments(false).build();
        PrincipalId principal = PrincipalId.fromCanonical("heap:secret");
        String target = "/bucket/object-key";

        // what the pool and the transport allocate per session, without the core
        try (SlabStagingPool pool = new SlabStagingPool(transport, SESSIONS, 64)) {
            Object[] keep = new Object[2 * SESSIONS];
            long before = usedHeapAfterGc();
            for (int i = 0; i < SESSIONS; i++) {
                keep[2 * i] = pool.borrow(64, principal, "x");
                keep[2 * i + 1] = transport.openChannel(null);
            }
            long outside = (usedHeapAfterGc() - before) / SESSIONS;
            if (keep[keep.length - 1] == null) {
                throw new IllegalStateException();
            }
            keep = null;

            try (SlabStagingPool sessionsPool = new SlabStagingPool(transport, SESSIONS, 64)) {
                SessionCore core = new SessionCore(SessionSettings.builder().allowAddresses("127.0.0.0/8, ::1").controlPlaneOnly(true).maxSessions(SESSIONS)
                        .maxUserSessions(SESSIONS).maxQps(SESSIONS).maxUserQps(SESSIONS).build(),
                        MonotonicClock.system(), RandomSource.secure());
                core.useTransport(transport);
                core.useStagingPool(sessionsPool);
                long start = usedHeapAfterGc();
                for (int i = 0; i < SESSIONS; i++) {
                    core.prepare(new PrepareRequest(principal, Op.GET, target, 0, 64, 1, 1, null, null)).orElseThrow();
                }
                long total = (usedHeapAfterGc() - start) / SESSIONS;
                if (core.liveSessions() != SESSIONS) {
                    throw new IllegalStateException("expected " + SESSIONS + " live sessions");
                }
                System.out.printf("idle prepared session, %,d live: %,d heap bytes each including the pool's lease and"
                        + " the transport's channel objects (%,d), so %,d bytes for the session core alone; aim <= 2048%n",
                        SESSIONS, total, outside, total - outside);
                core.shutdown(java.time.Duration.ofSeconds(5));
            }
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
