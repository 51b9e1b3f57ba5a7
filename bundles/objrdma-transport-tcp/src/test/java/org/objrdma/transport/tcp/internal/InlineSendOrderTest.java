package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;

/**
 * Small requests posted on an idle connection go out from the posting thread, larger ones through the writer
 * ({@link TcpConnection#DIRECT_SEND_MAX}): a mix of both, posted without waiting, must still reach the peer in
 * posting order. SENDs make the order visible: receives are consumed in their posting order, so receive k must
 * hold the k-th SEND posted.
 */
class InlineSendOrderTest {
    private static final int COUNT = 99;
    private static final int LARGE = 128 * 1024; // above DIRECT_SEND_MAX: queued for the writer
    private static final int SMALL = 1024; // inline when nothing is queued

    private static int size(int i) {
        return i % 3 == 1 ? LARGE : SMALL;
    }

    @Test
    void inlineAndQueuedSendsArriveInPostingOrder() throws Exception {
        assertTrue(LARGE > TcpConnection.DIRECT_SEND_MAX && SMALL <= TcpConnection.DIRECT_SEND_MAX);
        try (Arena arena = Arena.ofShared()) {
            TcpTransport a = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
            TcpTransport b = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
            try {
                MemorySegment source = arena.allocate((long) COUNT * LARGE, 4096);
                MemorySegment target = arena.allocate((long) COUNT * LARGE, 4096);
                for (int i = 0; i < COUNT; i++) {
                    source.set(ValueLayout.JAVA_LONG, (long) i * LARGE, i);
                }
                MemoryRegion src = a.register(source, EnumSet.of(Access.LOCAL_WRITE));
                MemoryRegion dst = b.register(target, EnumSet.of(Access.LOCAL_WRITE));
                Channel ca = a.openChannel(ChannelOptions.DEFAULT);
                Channel cb = b.openChannel(ChannelOptions.DEFAULT);
                ca.connect(cb.localEndpoint());
                cb.connect(ca.localEndpoint());
                List<CompletableFuture<BatchResult>> receives = new ArrayList<>();
                for (int i = 0; i < COUNT; i++) {
                    receives.add(cb.submit(List.of(WorkRequest.recv(i,
                            new ScatterGatherEntry(dst, (long) i * LARGE, LARGE))), Duration.ofSeconds(30)));
                }
                // triples on an idle connection: a small SEND (sent inline), a large one (queued: the writer has to
                // wake for it) and right behind it a small one, which must queue behind the large one rather than
                // overtake it inline while the writer is still waking
                List<CompletableFuture<BatchResult>> sends = new ArrayList<>();
                for (int i = 0; i < COUNT; i += 3) {
                    for (int k = i; k < i + 3; k++) {
                        sends.add(ca.submit(List.of(WorkRequest.send(k, new ScatterGatherEntry(src, (long) k * LARGE,
                                size(k)))), Duration.ofSeconds(30)));
                    }
                    for (int k = i; k < i + 3; k++) {
                        sends.get(k).get(30, TimeUnit.SECONDS);
                    }
                }
                for (int i = 0; i < COUNT; i++) {
                    assertTrue(sends.get(i).get(30, TimeUnit.SECONDS).isSuccess(), "send " + i);
                    BatchResult r = receives.get(i).get(30, TimeUnit.SECONDS);
                    assertTrue(r.isSuccess(), "receive " + i + ": " + r);
                    assertEquals(size(i), r.completions().get(0).byteLength(), "receive " + i);
                    assertEquals(i, target.get(ValueLayout.JAVA_LONG, (long) i * LARGE), "receive " + i
                            + " holds the SEND posted as number " + i);
                }
                ca.close();
                cb.close();
                src.close();
                dst.close();
            } finally {
                a.close();
                b.close();
            }
        }
    }
}
