package org.objrdma.session.internal;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * An in-memory transport for unit tests: channels of one instance connect to each other by channel id
 * and copy bytes between registered segments, checking rkey and bounds like a NIC would. A WRITE_WITH_IMM
 * consumes a RECV posted at the peer (receiver-not-ready when none is), and completes it with the
 * immediate and the byte count.
 *
 * <p>Fault injection: {@link #script} replaces the completion of a submitted send-queue request;
 * {@link #hold} makes submits wait for the test; {@link #failConnect}, {@link #failOpen} and
 * {@link #failReset} refuse.
 */
final class LoopbackTransport implements Transport {
    private static final InetSocketAddress AGENT = new InetSocketAddress("127.0.0.1", 7471);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loopback-timer");
        t.setDaemon(true);
        return t;
    });

    private final String name;
    private final AtomicLong channelIds = new AtomicLong();
    private final AtomicInteger rkeys = new AtomicInteger(0x1000);
    private final Map<Long, LoopbackChannel> channels = new ConcurrentHashMap<>();
    private final Map<Integer, LoopbackRegion> regions = new ConcurrentHashMap<>();

    /** Registrations open now (a PUT session's staging slice is one on this transport: it cannot grant). */
    int regionCount() {
        return regions.size();
    }
    final AtomicLong opened = new AtomicLong();
    final AtomicLong closed = new AtomicLong();

    /** Replaces the completion of a send-queue request on a server channel; null result = normal path. */
    volatile Function<WorkRequest, Completion> script;
    /** When set, every submit waits on this future before it runs (a data phase the test holds open). */
    volatile CompletableFuture<Void> hold;
    volatile boolean failConnect;
    volatile boolean failOpen;
    volatile boolean failReset;

    LoopbackTransport(String name) {
        this.name = name;
    }

    @Override public String name() { return name; }
    @Override public TransportLevel level() { return TransportLevel.TCP; }
    @Override public boolean isAvailable() { return true; }
    @Override public Optional<String> unavailabilityCause() { return Optional.empty(); }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        if (!segment.isNative() || segment.byteSize() == 0 || access.isEmpty()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "bad segment or access");
        }
        LoopbackRegion region = new LoopbackRegion(segment, rkeys.incrementAndGet(), Set.copyOf(access));
        regions.put(region.rkey, region);
        return region;
    }

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        if (failOpen) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "scripted open failure");
        }
        long id = channelIds.incrementAndGet();
        LoopbackChannel c = new LoopbackChannel(id, options.accessKey());
        channels.put(id, c);
        opened.incrementAndGet();
        return c;
    }

    int openChannels() {
        return channels.size();
    }

    /** The endpoint of channel {@code id}, or null once it is gone. */
    EndpointInfo endpointOf(long id) {
        LoopbackChannel c = channels.get(id);
        return c == null ? null : c.localEndpoint();
    }

    /** State of channel {@code id}, CLOSED once it is gone. */
    ChannelState channelState(long id) {
        LoopbackChannel c = channels.get(id);
        return c == null ? ChannelState.CLOSED : c.state();
    }

    final class LoopbackRegion implements MemoryRegion {
        final MemorySegment segment;
        final int rkey;
        final Set<Access> access;
        volatile boolean open = true;

        LoopbackRegion(MemorySegment segment, int rkey, Set<Access> access) {
            this.segment = segment;
            this.rkey = rkey;
            this.access = access;
        }

        @Override public MemorySegment segment() { return segment; }
        @Override public long address() { return segment.address(); }
        @Override public long length() { return segment.byteSize(); }
        @Override public int lkey() { return rkey; }
        @Override public int rkey() { return rkey; }
        @Override public Set<Access> access() { return access; }
        @Override public String transportName() { return name; }
        @Override public boolean isOpen() { return open; }

        @Override
        public void close() {
            open = false;
            regions.remove(rkey);
        }
    }

    /** A posted receive waiting for the peer's WRITE_WITH_IMM. */
    private static final class PendingReceive {
        final WorkRequest request;
        final CompletableFuture<BatchResult> future;
        final AtomicBoolean done = new AtomicBoolean();

        PendingReceive(WorkRequest request, CompletableFuture<BatchResult> future) {
            this.request = request;
            this.future = future;
        }
    }

    final class LoopbackChannel implements Channel {
        private final long id;
        private final EndpointInfo.Tcp local;
        private volatile EndpointInfo remote;
        private volatile ChannelState state = ChannelState.INIT;
        private final Deque<PendingReceive> receives = new ArrayDeque<>();
        private final ConcurrentLinkedQueue<Completion> polled = new ConcurrentLinkedQueue<>();
        private final Set<CompletableFuture<BatchResult>> held = ConcurrentHashMap.newKeySet();

        LoopbackChannel(long id, byte[] givenKey) {
            this.id = id;
            byte[] key = givenKey;
            if (key == null) {
                key = new byte[16];
                key[0] = (byte) id;
                key[1] = (byte) (id >>> 8);
            }
            this.local = new EndpointInfo.Tcp(AGENT, id, key);
        }

        @Override public long id() { return id; }
        @Override public String transportName() { return name; }
        @Override public EndpointInfo localEndpoint() { return local; }
        @Override public EndpointInfo remoteEndpoint() { return remote; }
        @Override public ChannelState state() { return state; }

        @Override
        public void connect(EndpointInfo peer) throws TransportException {
            if (!(peer instanceof EndpointInfo.Tcp tcp)) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "not a TCP endpoint");
            }
            if (state != ChannelState.INIT) {
                throw new TransportException(TransportError.WRONG_STATE, "channel " + id + " is " + state);
            }
            if (failConnect || !channels.containsKey(tcp.channelId())) {
                throw new TransportException(TransportError.CONNECT_FAILED, "no channel " + tcp.channelId());
            }
            remote = peer;
            state = ChannelState.CONNECTED;
        }

        @Override
        public void post(WorkRequest request) throws TransportException {
            CompletableFuture<BatchResult> f = submit(List.of(request), Duration.ofSeconds(30));
            f.thenAccept(batch -> polled.addAll(batch.completions()));
        }

        @Override
        public int poll(Completion[] out) {
            int n = 0;
            Completion c;
            while (n < out.length && (c = polled.poll()) != null) {
                out[n++] = c;
            }
            return n;
        }

        @Override
        public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
            if (requests.size() != 1) {
                return CompletableFuture.failedFuture(new TransportException(TransportError.INVALID_ARGUMENT, "one at a time"));
            }
            WorkRequest wr = requests.get(0);
            CompletableFuture<Void> gate = hold;
            if (gate != null) {
                // held until the test opens the gate; a close meanwhile flushes it like a real transport
                CompletableFuture<BatchResult> out = new CompletableFuture<>();
                held.add(out);
                gate.thenRun(() -> run(wr, timeout).whenComplete((r, e) -> {
                    if (e != null) {
                        out.completeExceptionally(e);
                    } else {
                        out.complete(r);
                    }
                }));
                out.whenComplete((r, e) -> held.remove(out));
                return out;
            }
            return run(wr, timeout);
        }

        private CompletableFuture<BatchResult> run(WorkRequest wr, Duration timeout) {
            if (state == ChannelState.CLOSED) {
                return CompletableFuture.failedFuture(new TransportException(TransportError.CLOSED, "closed"));
            }
            if (wr.opcode() == Opcode.RECV) {
                CompletableFuture<BatchResult> f = new CompletableFuture<>();
                PendingReceive pending = new PendingReceive(wr, f);
                synchronized (this) {
                    if (state == ChannelState.CLOSED || state == ChannelState.ERROR) {
                        return CompletableFuture.completedFuture(batch(Completion.failure(wr.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV), false));
                    }
                    receives.add(pending);
                }
                TIMER.schedule(() -> {
                    if (pending.done.compareAndSet(false, true)) {
                        synchronized (this) {
                            receives.remove(pending);
                            state = ChannelState.ERROR;
                        }
                        f.complete(batch(Completion.failure(wr.wrId(), WcStatus.RESP_TIMEOUT_ERR, WcOpcode.RECV), true));
                    }
                }, timeout.toMillis(), TimeUnit.MILLISECONDS);
                return f;
            }
            if (state != ChannelState.CONNECTED) {
                return CompletableFuture.failedFuture(new TransportException(TransportError.WRONG_STATE, "not connected"));
            }
            Function<WorkRequest, Completion> s = script;
            Completion scripted = s == null ? null : s.apply(wr);
            Completion result = scripted != null ? scripted : writeWithImm(wr);
            if (!result.isSuccess()) {
                state = ChannelState.ERROR;
            }
            return CompletableFuture.completedFuture(batch(result, false));
        }

        private Completion writeWithImm(WorkRequest wr) {
            if (wr.opcode() != Opcode.WRITE_WITH_IMM && wr.opcode() != Opcode.WRITE) {
                return Completion.failure(wr.wrId(), WcStatus.LOC_QP_OP_ERR, WcOpcode.forRequest(wr.opcode()));
            }
            LoopbackChannel peer = channels.get(((EndpointInfo.Tcp) remote).channelId());
            if (peer == null) {
                return Completion.failure(wr.wrId(), WcStatus.RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
            }
            LoopbackRegion target = regions.get(wr.rkey());
            long length = wr.byteLength();
            if (target == null || !target.access.contains(Access.REMOTE_WRITE)
                    || !new RemoteRegion(target.address(), target.length(), target.rkey()).contains(wr.remoteAddress(), length)) {
                return Completion.failure(wr.wrId(), WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
            }
            PendingReceive receive = null;
            if (wr.opcode() == Opcode.WRITE_WITH_IMM) {
                receive = peer.takeReceive();
                if (receive == null) {
                    return Completion.failure(wr.wrId(), WcStatus.RNR_RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
                }
            }
            long at = wr.remoteAddress() - target.address();
            for (ScatterGatherEntry sge : wr.sgList()) {
                MemorySegment.copy(sge.region().segment(), sge.offset(), target.segment, at, sge.length());
                at += sge.length();
            }
            if (receive != null) {
                receive.future.complete(batch(new Completion(receive.request.wrId(), WcStatus.SUCCESS,
                        WcOpcode.RECV_RDMA_WITH_IMM, length, true, wr.immediate(), 0), false));
            }
            return Completion.success(wr.wrId(), WcOpcode.RDMA_WRITE, length);
        }

        private PendingReceive takeReceive() {
            synchronized (this) {
                PendingReceive p;
                while ((p = receives.poll()) != null) {
                    if (p.done.compareAndSet(false, true)) {
                        return p;
                    }
                }
                return null;
            }
        }

        /** Same id and endpoint, back to INIT; what was outstanding is flushed first, as a real transport does. */
        @Override
        public void reset() throws TransportException {
            List<PendingReceive> flushed;
            synchronized (this) {
                if (state == ChannelState.CLOSED) {
                    throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
                }
                if (state == ChannelState.INIT) {
                    return;
                }
                if (failReset) {
                    state = ChannelState.ERROR;
                    throw new TransportException(TransportError.IO, "scripted reset failure");
                }
                flushed = takeReceives();
            }
            flush(flushed);
            synchronized (this) {
                if (state == ChannelState.CLOSED) {
                    throw new TransportException(TransportError.CLOSED,
                            "channel " + id + " was closed while resetting");
                }
                remote = null;
                state = ChannelState.INIT;
            }
        }

        @Override
        public void close() {
            List<PendingReceive> flushed;
            synchronized (this) {
                if (state == ChannelState.CLOSED) {
                    return;
                }
                state = ChannelState.CLOSED;
                flushed = takeReceives();
            }
            flush(flushed);
            channels.remove(id);
            closed.incrementAndGet();
        }

        private List<PendingReceive> takeReceives() {
            List<PendingReceive> taken = new ArrayList<>(receives);
            receives.clear();
            return taken;
        }

        private void flush(List<PendingReceive> flushed) {
            for (PendingReceive p : flushed) {
                if (p.done.compareAndSet(false, true)) {
                    p.future.complete(batch(Completion.failure(p.request.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV), false));
                }
            }
            for (CompletableFuture<BatchResult> f : held) {
                f.complete(batch(Completion.failure(0, WcStatus.WR_FLUSH_ERR, WcOpcode.RDMA_WRITE), false));
            }
        }
    }

    private static BatchResult batch(Completion c, boolean timedOut) {
        return new BatchResult(List.of(c), timedOut);
    }
}
