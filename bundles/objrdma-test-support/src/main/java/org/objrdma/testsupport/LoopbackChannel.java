package org.objrdma.testsupport;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * A channel of a {@link FakeTransport} in {@code LOOPBACK} mode: connects to another channel of the same instance
 * by channel id; a WRITE / WRITE_WITH_IMM copies from its scatter list into the instance's region named by the
 * rkey, bounds and REMOTE_WRITE checked; a WRITE_WITH_IMM consumes a receive posted at the peer and completes it
 * with the immediate and the byte count (receiver-not-ready without one). One request per submit.
 */
final class LoopbackChannel implements Channel {
    private static final InetSocketAddress AGENT = new InetSocketAddress("127.0.0.1", 7471);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loopback-timer");
        t.setDaemon(true);
        return t;
    });

    /** A posted receive waiting for the peer's WRITE_WITH_IMM. */
    private record PendingReceive(WorkRequest request, CompletableFuture<BatchResult> future, AtomicBoolean done) {
        PendingReceive(WorkRequest request, CompletableFuture<BatchResult> future) {
            this(request, future, new AtomicBoolean());
        }
    }

    private final FakeTransport transport;
    private final long id;
    private final EndpointInfo.Tcp local;
    private volatile EndpointInfo remote;
    private volatile ChannelState state = ChannelState.INIT;
    private final Deque<PendingReceive> receives = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<Completion> polled = new ConcurrentLinkedQueue<>();
    private final Set<CompletableFuture<BatchResult>> held = ConcurrentHashMap.newKeySet();

    LoopbackChannel(FakeTransport transport, long id, byte[] givenKey) {
        this.transport = transport;
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
    @Override public String transportName() { return transport.name(); }
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
        if (transport.failConnect || !transport.channels.containsKey(tcp.channelId())) {
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
        CompletableFuture<Void> gate = transport.hold;
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
                if (pending.done().compareAndSet(false, true)) {
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
        Function<WorkRequest, Completion> s = transport.script;
        Completion scripted = s == null ? null : s.apply(wr);
        Completion result = scripted != null ? scripted : write(wr);
        if (!result.isSuccess()) {
            state = ChannelState.ERROR;
        }
        return CompletableFuture.completedFuture(batch(result, false));
    }

    private Completion write(WorkRequest wr) {
        if (wr.opcode() != Opcode.WRITE_WITH_IMM && wr.opcode() != Opcode.WRITE) {
            return Completion.failure(wr.wrId(), WcStatus.LOC_QP_OP_ERR, WcOpcode.forRequest(wr.opcode()));
        }
        LoopbackChannel peer = transport.channels.get(((EndpointInfo.Tcp) remote).channelId());
        if (peer == null) {
            return Completion.failure(wr.wrId(), WcStatus.RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
        }
        FakeRegion target = transport.openRegions.get(wr.rkey());
        long length = wr.byteLength();
        if (target == null || !target.access().contains(Access.REMOTE_WRITE)
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
            MemorySegment.copy(sge.region().segment(), sge.offset(), target.segment(), at, sge.length());
            at += sge.length();
        }
        if (receive != null) {
            receive.future().complete(batch(new Completion(receive.request().wrId(), WcStatus.SUCCESS,
                    WcOpcode.RECV_RDMA_WITH_IMM, length, true, wr.immediate(), 0), false));
        }
        return Completion.success(wr.wrId(), WcOpcode.RDMA_WRITE, length);
    }

    private PendingReceive takeReceive() {
        synchronized (this) {
            PendingReceive p;
            while ((p = receives.poll()) != null) {
                if (p.done().compareAndSet(false, true)) {
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
            if (transport.failReset) {
                state = ChannelState.ERROR;
                throw new TransportException(TransportError.IO, "scripted reset failure");
            }
            flushed = takeReceives();
        }
        flush(flushed);
        synchronized (this) {
            if (state == ChannelState.CLOSED) {
                throw new TransportException(TransportError.CLOSED, "channel " + id + " was closed while resetting");
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
        transport.channelClosed(id);
    }

    private List<PendingReceive> takeReceives() {
        List<PendingReceive> taken = new ArrayList<>(receives);
        receives.clear();
        return taken;
    }

    private void flush(List<PendingReceive> flushed) {
        for (PendingReceive p : flushed) {
            if (p.done().compareAndSet(false, true)) {
                p.future().complete(batch(Completion.failure(p.request().wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV), false));
            }
        }
        for (CompletableFuture<BatchResult> f : held) {
            f.complete(batch(Completion.failure(0, WcStatus.WR_FLUSH_ERR, WcOpcode.RDMA_WRITE), false));
        }
    }

    private static BatchResult batch(Completion c, boolean timedOut) {
        return new BatchResult(List.of(c), timedOut);
    }
}
