package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * Closing never waits on a peer beyond the finish grace, whatever the peer does: here every peer is frozen — an
 * authenticated socket that never reads a byte and never hangs up — with the transport's writer and a posting
 * thread (the inline small-send path, holding the connection's send lock) blocked on full socket buffers. A
 * channel close and the transport's close still return, every request posted completes exactly once with a
 * flush, and no thread of the transport is left.
 */
class FrozenPeerCloseTest {
    private static final int PAYLOAD = 64 * 1024; // inline-send size: the poster writes it itself
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private TcpTransport transport() throws Exception {
        // small socket buffers so a frozen peer blocks the sender after a few frames; keepalive far beyond the
        // test, so only close can end these connections
        TcpSettings s = TcpSettings.from(TcpSettings.configWith(Map.of("socket.send.buffer", 4096,
                "socket.receive.buffer", 4096, "keepalive.timeout.ms", 120_000L, "keepalive.interval.ms", 60_000L)),
                null);
        TcpTransport t = TcpTransport.start(s, () -> Telemetry.NOOP);
        resources.add(t);
        return t;
    }

    /** One channel of {@code t} connected to a raw peer that then never reads and never closes. */
    private record Frozen(Channel channel, RawPeer peer) {
    }

    private Frozen frozen(TcpTransport t) throws Exception {
        Channel c = t.openChannel(new ChannelOptions(256, 4, 1, java.time.Duration.ofSeconds(10)));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) c.localEndpoint();
        byte[] code = new byte[1];
        RawPeer peer = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code);
        resources.add(peer);
        assertEquals(Wire.REPLY_OK, code[0]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.state() != ChannelState.CONNECTED) {
            assertTrue(System.nanoTime() < deadline, "the peer's connection was never attached");
            TimeUnit.MILLISECONDS.sleep(1);
        }
        return new Frozen(c, peer);
    }

    /** Every completion a channel delivers, by work request id. */
    private static final class Completions {
        final ConcurrentLinkedQueue<Completion> all = new ConcurrentLinkedQueue<>();

        void drain(Channel c) {
            Completion[] out = new Completion[64];
            int n;
            while ((n = c.poll(out)) > 0) {
                all.addAll(Arrays.asList(out).subList(0, n));
            }
        }
    }

    /**
     * Posts 64 KiB WRITEs on {@code c} from a thread of its own until that thread is stuck inside an inline send
     * (the peer's buffers are full); returns the thread. {@code posted} counts the posts that returned, so once
     * the thread is joined it counts the one that was stuck as well.
     */
    private static Thread posterStuckInline(Channel c, MemoryRegion source, int[] posted) throws Exception {
        Thread poster = Thread.ofPlatform().daemon().name("frozen-peer-poster").start(() -> {
            try {
                for (int i = 0; i < 200; i++) {
                    c.post(WorkRequest.write(i, new ScatterGatherEntry(source, 0, PAYLOAD), 0x1000, 0x77));
                    posted[0] = i + 1;
                }
            } catch (TransportException closed) {
                // the close came while posting: refused, not queued
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!inInlineSend(poster)) {
            assertTrue(poster.isAlive(), "the poster never blocked: " + posted[0] + " WRITEs went out unread");
            assertTrue(System.nanoTime() < deadline, "the poster never blocked in an inline send");
            TimeUnit.MILLISECONDS.sleep(1);
        }
        return poster;
    }

    private static boolean inInlineSend(Thread t) {
        return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("sendClaimed"))
                && t.getState() == Thread.State.RUNNABLE;
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix + "-")).count();
    }

    @Test
    void closingAChannelWhoseInlinePosterIsBlockedOnAFrozenPeerFlushesEverything() throws Exception {
        TcpTransport t = transport();
        MemorySegment memory = Arena.ofShared().allocate(PAYLOAD, 4096);
        MemoryRegion source = t.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        Frozen f = frozen(t);
        int[] posted = new int[1];
        Thread poster = posterStuckInline(f.channel(), source, posted);

        long start = System.nanoTime();
        f.channel().close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        poster.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(poster.isAlive(), "the poster blocked in its inline write was woken by the cut");

        Completions done = new Completions();
        done.drain(f.channel());
        assertEquals(posted[0], done.all.size(),
                "every WRITE posted completed once (the one stuck inline too): " + done.all);
        assertTrue(done.all.stream().noneMatch(Completion::isSuccess), "a frozen peer acknowledged nothing");
        assertTrue(done.all.stream().allMatch(c -> c.status() == WcStatus.WR_FLUSH_ERR
                || c.status() == WcStatus.RETRY_EXC_ERR), done.all.toString());
        assertEquals(ChannelState.CLOSED, f.channel().state());
        assertEquals(0, t.connectionCount());
        System.out.println("channel close with a frozen peer and a blocked inline poster took " + tookMs + " ms");
        source.close();
    }

    @Test
    void transportCloseWithManyFrozenPeersReturnsAndLeavesNoThread() throws Exception {
        TcpTransport t = transport();
        MemorySegment memory = Arena.ofShared().allocate(PAYLOAD, 4096);
        MemoryRegion source = t.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        List<Frozen> peers = new ArrayList<>();
        List<Thread> posters = new ArrayList<>();
        List<int[]> counts = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Frozen f = frozen(t);
            peers.add(f);
            int[] posted = new int[1];
            counts.add(posted);
            if (i % 2 == 0) {
                posters.add(posterStuckInline(f.channel(), source, posted)); // the poster holds the send lock
            } else {
                // the writer thread is the one blocked: a large WRITE queued behind nothing
                MemorySegment big = Arena.ofShared().allocate(4 << 20, 4096);
                MemoryRegion bigRegion = t.register(big, EnumSet.of(Access.LOCAL_WRITE));
                f.channel().post(WorkRequest.write(1, ScatterGatherEntry.of(bigRegion), 0x1000, 0x77));
                posted[0] = 1;
            }
        }
        String prefix = t.threadPrefix();
        // the connections' threads start on their own schedule: wait for them (a loaded machine is slow to)
        long threadsBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threads(prefix) < 2 + 2 * peers.size() && System.nanoTime() < threadsBy) {
            Thread.sleep(10);
        }
        assertTrue(threads(prefix) >= 2 + 2 * peers.size(), "agent, timer, a reader and a writer per peer: "
                + threads(prefix));

        long start = System.nanoTime();
        t.close();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals(0, threads(prefix), "close joined every thread of the transport");
        for (Thread p : posters) {
            p.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(p.isAlive());
        }
        for (int i = 0; i < peers.size(); i++) {
            Completions done = new Completions();
            done.drain(peers.get(i).channel());
            int expected = counts.get(i)[0]; // read after its poster was joined: the one stuck inline counts too
            assertEquals(expected, done.all.size(), "channel " + i + ": each request completed once: " + done.all);
            assertTrue(done.all.stream().noneMatch(Completion::isSuccess));
            assertEquals(ChannelState.CLOSED, peers.get(i).channel().state());
        }
        assertEquals(0, t.channelCount());
        assertEquals(0, t.regionCount());
        System.out.println("transport close with " + peers.size() + " frozen peers took " + tookMs + " ms (finish"
                + " grace " + TimeUnit.NANOSECONDS.toMillis(500_000_000L) + " ms, shared)");
    }
}
