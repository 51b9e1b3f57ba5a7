package org.objrdma.transport.tcp.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;

/**
 * The one TCP connection of a connected {@link TcpChannel}, with its two threads.
 *
 * <p><b>Threads.</b> A reader thread reads frames and acts as the NIC's responder: it checks rkey, access and
 * bounds, reads WRITE and SEND payloads straight from the socket into the registered memory (a
 * {@code ByteBuffer} view of the segment, no intermediate copy), and completes our own requests from the
 * peer's acknowledgements. A writer thread sends everything: our requests and their payloads (gathering
 * writes of header and registered memory), acknowledgements, READ responses and pings. The reader never
 * writes to the socket, so two peers serving each other's large READs cannot deadlock with full socket
 * buffers; it only queues work for the writer. Blocking sockets with dedicated platform threads keep the
 * data path free of selector hand-offs: each byte is moved by one system call into its final place.
 *
 * <p><b>Ending.</b> The first cause recorded wins ({@link #abort}); closing the socket wakes both threads, and
 * when the second one stops the channel flushes its unfinished work with that cause.
 */
final class TcpConnection {

    /** What the writer sends. Control items go out between payload frames; data items one at a time. */
    private sealed interface Outbound permits Ack, Ping, Stop, Finish, SendRequest, ReadResponse {
    }

    /** A local close: what was queued for the peer before it goes out, then end of stream. */
    private record Finish() implements Outbound {
    }

    private record Ack(long seq, WcStatus status, boolean refusal) implements Outbound {
    }

    private record Ping() implements Outbound {
    }

    private record Stop() implements Outbound {
    }

    private record SendRequest(SendOp op) implements Outbound {
    }

    private record ReadResponse(long seq, TcpRegion region, TcpGrant grant, long offset, long length)
            implements Outbound {
        boolean acquire() {
            return grant != null ? grant.acquire() : region.acquire();
        }

        void release() {
            if (grant != null) {
                grant.release();
            } else {
                region.release();
            }
        }
    }

    /** Where a checked remote access lands: a region, through one of this channel's grants or (deprecated) not. */
    private record RemoteTarget(TcpRegion region, TcpGrant grant) {
        /** Where a checked remote address lies in the region: through the grant (whose base may be opaque). */
        long regionOffset(long remoteAddress) {
            return grant != null ? grant.regionOffset(remoteAddress) : remoteAddress - region.address();
        }
    }

    private static final Ping PING = new Ping();
    private static final Stop STOP = new Stop();
    private static final Finish FINISH = new Finish();
    /**
     * How long a local close waits for the writer to send what was already queued (acknowledgements above all)
     * and for the peer to hang up before it cuts the socket: a peer's last WRITE_WITH_IMM must not lose its acknowledgement because the
     * owner closed the channel right after its receive completed. Bounded: a writer stuck on a peer that does
     * not read is cut as before.
     */
    private static final long FINISH_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int SKIP_BUFFER = 64 * 1024;
    /**
     * Largest payload a posting thread sends itself when the connection has nothing else to send: small enough
     * that the write fits the socket buffer of a reading peer, so the poster is not held long.
     */
    static final long DIRECT_SEND_MAX = 64 * 1024;
    /** Set on this transport's own threads (readers run completion callbacks), which never send inline. */
    private static final ThreadLocal<Boolean> TRANSPORT_THREAD = new ThreadLocal<>();

    private final TcpTransport transport;
    private final TcpChannel channel;
    private final SocketChannel socket;
    private final PeerIdentity peer;
    private final int frameSize;
    private final Thread reader;
    private final Thread writer;

    private final LinkedBlockingQueue<Outbound> outbox = new LinkedBlockingQueue<>();
    /**
     * Items queued for the socket and not yet written (or dropped): in the outbox, or held back by the writer
     * behind a payload in progress. Zero means the socket has nothing waiting, so a poster may send inline.
     */
    private final AtomicInteger unsent = new AtomicInteger();
    /** Held by whoever writes to the socket: the writer thread, or a poster sending inline. */
    private final ReentrantLock sendLock = new ReentrantLock();
    private final AtomicReference<EndCause> endCause = new AtomicReference<>();
    private final AtomicInteger runningThreads = new AtomicInteger(2);
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean pingQueued = new AtomicBoolean();
    /** Peer READs queued for the writer; bounded by max.queue.depth. */
    private final AtomicInteger queuedReads = new AtomicInteger();
    /** Frames and wire bytes the reader queued for the peer (acknowledgements, READ responses) not yet sent. */
    private final AtomicInteger owedFrames = new AtomicInteger();
    private final AtomicLong owedBytes = new AtomicLong();
    private volatile int owedFramesHighWater;
    /** The reader is parked waiting for the writer queue to drain. */
    private volatile boolean readerBackPressured;
    private volatile Runnable endHook;
    /** When a graceful end began ({@link #beginFinish}); its grace runs from here. */
    private volatile long finishBegan;

    private volatile long lastReceived = System.nanoTime();
    private volatile long lastSent = System.nanoTime();
    /** The reader waits for a local receive to be posted: the peer's silence is not its fault then. */
    private volatile boolean readerWaitingLocally;
    /** After we refused a peer request: everything that arrives is read and dropped until the peer hangs up. */
    private volatile long refusingSince;
    private volatile boolean refusing;
    /** Regions whose lease the reader / writer holds right now (for region close escalation). */
    private volatile TcpRegion readerRegion;
    private volatile TcpRegion writerRegion;

    // reader-thread state: the peer request whose payload is arriving
    private long inboundSeq;
    private Opcode inboundOp;
    private long inboundLength;
    private long inboundRemaining;
    private MemoryCursor inboundTarget;
    private boolean inboundIntoRemoteRegion;
    private RecvOp inboundRecv;
    private boolean inboundHasImmediate;
    private int inboundImmediate;
    private boolean inboundActive;

    TcpConnection(TcpTransport transport, TcpChannel channel, SocketChannel socket, PeerIdentity peer) {
        this.transport = transport;
        this.channel = channel;
        this.socket = socket;
        this.peer = peer;
        this.frameSize = transport.settings().frameSize();
        this.input = new SocketInput(socket);
        String base = transport.threadPrefix() + "-ch" + channel.id();
        this.reader = Thread.ofPlatform().daemon().name(base + "-reader").unstarted(this::readLoop);
        this.writer = Thread.ofPlatform().daemon().name(base + "-writer").unstarted(this::writeLoop);
    }

    /** Starts both threads; call once, after the handshake reply went out. */
    void start() {
        if (started.compareAndSet(false, true)) {
            lastReceived = System.nanoTime();
            lastSent = lastReceived;
            reader.start();
            writer.start();
        }
    }

    PeerIdentity peer() {
        return peer;
    }

    TcpChannel channel() {
        return channel;
    }

    boolean isOwnThread(Thread t) {
        return t == reader || t == writer;
    }

    /** True if a thread of this connection holds a lease on {@code region} right now. */
    boolean touches(TcpRegion region) {
        return readerRegion == region || writerRegion == region;
    }

    /**
     * Hands a posted request to the socket, in posting order (the caller holds the channel's lock). If nothing
     * is waiting to be sent, the request is small and the caller is not one of the transport's threads, the
     * caller claims the socket and must then call {@link #sendClaimed} once it has released the channel's lock:
     * the request goes out from the posting thread, without waking the writer (one thread hand-off less per
     * operation). Otherwise the request is queued for the writer and false is returned.
     */
    boolean send(SendOp op) {
        if (op.length <= DIRECT_SEND_MAX && TRANSPORT_THREAD.get() == null && unsent.get() == 0
                && sendLock.tryLock()) {
            if (unsent.compareAndSet(0, 1)) {
                return true; // claimed: later posts queue behind us, the writer waits for the lock
            }
            sendLock.unlock();
        }
        enqueue(new SendRequest(op));
        return false;
    }

    /**
     * Sends a request {@link #send} let the caller claim, on the caller's thread, then releases the socket.
     * Failures end the connection as they would on the writer.
     */
    void sendClaimed(SendOp op) {
        assert sendLock.isHeldByCurrentThread();
        try {
            sendRequest(op, null);
        } catch (WriterDone done) {
            // the request's source region was closed: the connection is ending already
        } catch (ClosedChannelException e) {
            abort(EndCause.LOCAL_CLOSE);
        } catch (IOException e) {
            TcpTransport.LOG.debug("channel {}: sending to {} failed: {}", channel.id(), peer, e.toString());
            abort(EndCause.PEER_VANISHED);
        } catch (RuntimeException | Error e) {
            TcpTransport.LOG.error("channel {}: sending inline failed", channel.id(), e);
            abort(EndCause.LOCAL_ERROR);
        } finally {
            writerRegion = null;
            unsent.decrementAndGet();
            sendLock.unlock();
        }
    }

    private void enqueue(Outbound item) {
        unsent.incrementAndGet();
        outbox.add(item);
    }

    /** Ends the connection; the first cause given wins. Idempotent, never blocks on the threads. */
    void abort(EndCause cause) {
        endCause.compareAndSet(null, cause);
        TcpTransport.closeQuietly(socket);
        enqueue(STOP);
        if (!started.get()) {
            start(); // the threads see the closed socket and stop at once; the channel then flushes
        }
    }

    /**
     * First half of a graceful end: the writer sends the control frames already queued (acknowledgements owed to
     * the peer), shuts down output and stops; the peer, reading end of stream, hangs up, which ends the reader.
     * Cutting the socket while the peer still sends would reset it, and a reset can drop the acknowledgement
     * from the peer's receive queue before it reads it. Never blocks. From one of this connection's own threads,
     * or before the threads started, it aborts at once. {@link #finishBy} is the second half.
     */
    void beginFinish(EndCause cause) {
        endCause.compareAndSet(null, cause);
        if (started.get() && !isOwnThread(Thread.currentThread())) {
            finishBegan = System.nanoTime();
            outbox.add(FINISH);
        } else {
            abort(cause);
        }
    }

    /**
     * Second half: waits for the peer's hang-up at most {@link #FINISH_GRACE_NANOS} after {@link #beginFinish}
     * and never past {@code deadline} (a {@link System#nanoTime} value), then cuts the socket whatever the peer
     * does — a frozen peer that neither reads nor hangs up costs one grace, and a writer or an inline poster
     * blocked on its full socket is woken by the cut. Many connections finishing together share the grace.
     */
    void finishBy(long deadline) {
        EndCause cause = endCause.get();
        long until = Math.min(deadline, finishBegan + FINISH_GRACE_NANOS);
        if (!isOwnThread(Thread.currentThread())) {
            awaitEnded(Math.max(0, until - System.nanoTime()));
        }
        abort(cause == null ? EndCause.LOCAL_CLOSE : cause);
    }

    /**
     * Joins both threads, until {@code deadline} at most, once they have ended ({@link #awaitEnded}): the
     * {@code ended} latch falls inside the last thread's final block, a moment before the thread itself is gone.
     * True if neither is alive any more. Not on one of the connection's own threads.
     */
    /** True once both threads have died (or never started). */
    boolean threadsGone() {
        return !started.get() || (!reader.isAlive() && !writer.isAlive());
    }

    boolean joinThreads(long deadline) {
        if (isOwnThread(Thread.currentThread()) || !started.get()) {
            return !started.get();
        }
        try {
            for (Thread t : new Thread[] {reader, writer}) {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    t.join(java.time.Duration.ofNanos(left));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !reader.isAlive() && !writer.isAlive();
    }

    /**
     * Records {@code cause} as why the connection will end, unless one is recorded already; call before a
     * state change its threads may notice first, then {@link #abort}.
     */
    void recordCause(EndCause cause) {
        endCause.compareAndSet(null, cause);
    }

    boolean awaitEnded(long nanos) {
        try {
            return ended.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ended.getCount() == 0;
        }
    }

    /** Keepalive: called by the transport's timer. */
    void tick(long now) {
        var s = transport.settings();
        if (refusing) {
            if (now - refusingSince > s.keepaliveTimeout().toNanos()) {
                abort(EndCause.REFUSED_PEER); // the peer never hung up after our refusal
            }
            return;
        }
        if (now - lastSent >= s.keepaliveInterval().toNanos() && pingQueued.compareAndSet(false, true)) {
            enqueue(PING);
        }
        if (!readerWaitingLocally && now - lastReceived > s.keepaliveTimeout().toNanos()) {
            TcpTransport.LOG.info("channel {}: nothing from {} for {} ms, declaring it gone", channel.id(), peer,
                    TimeUnit.NANOSECONDS.toMillis(now - lastReceived));
            abort(EndCause.KEEPALIVE_TIMEOUT);
        }
    }

    /** Runs once both threads have stopped (the agent's count of inbound sockets); set before {@link #start()}. */
    void onEnded(Runnable hook) {
        this.endHook = hook;
    }

    private void threadEnded() {
        if (runningThreads.decrementAndGet() == 0) {
            Runnable hook = endHook;
            if (hook != null) {
                hook.run();
            }
            EndCause cause = endCause.get();
            channel.connectionEnded(this, cause == null ? EndCause.LOCAL_CLOSE : cause);
            transport.connectionEnded(this);
            ended.countDown();
        }
    }

    // ================================================================== reader

    private final ByteBuffer inHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private final SocketInput input;
    private ByteBuffer skipBuffer;

    private void readLoop() {
        TRANSPORT_THREAD.set(Boolean.TRUE);
        try {
            while (true) {
                inHeader.clear();
                if (!readHeader()) {
                    abort(refusing ? EndCause.REFUSED_PEER : EndCause.PEER_CLOSED);
                    return;
                }
                dispatch();
            }
        } catch (ProtocolViolation e) {
            TcpTransport.LOG.warn("channel {}: {} from {}; closing the connection", channel.id(), e.getMessage(), peer);
            abort(EndCause.PROTOCOL_VIOLATION);
        } catch (ClosedChannelException e) {
            abort(EndCause.LOCAL_CLOSE); // someone closed the socket: the cause is already recorded
        } catch (IOException e) {
            TcpTransport.LOG.debug("channel {}: connection to {} broke: {}", channel.id(), peer, e.toString());
            abort(EndCause.PEER_VANISHED);
        } catch (InterruptedException e) {
            abort(EndCause.LOCAL_CLOSE);
        } catch (RuntimeException | Error e) {
            TcpTransport.LOG.error("channel {}: reader failed", channel.id(), e);
            abort(EndCause.LOCAL_ERROR);
        } finally {
            readerRegion = null;
            threadEnded();
        }
    }

    /** Reads one header; false on a clean end of stream before its first byte. */
    private boolean readHeader() throws IOException {
        while (inHeader.hasRemaining()) {
            int n = input.read(inHeader);
            if (n < 0) {
                if (inHeader.position() == 0) {
                    return false;
                }
                throw new EOFException("end of stream inside a frame header");
            }
            lastReceived = System.nanoTime();
        }
        return true;
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (input.read(b) < 0) {
                throw new EOFException("end of stream inside a frame");
            }
            lastReceived = System.nanoTime();
        }
    }

    private void skip(long n) throws IOException {
        if (skipBuffer == null) {
            skipBuffer = ByteBuffer.allocateDirect(SKIP_BUFFER);
        }
        while (n > 0) {
            skipBuffer.clear().limit((int) Math.min(SKIP_BUFFER, n));
            readFully(skipBuffer);
            n -= skipBuffer.limit();
        }
    }

    private void dispatch() throws IOException, InterruptedException {
        byte type = Wire.type(inHeader);
        switch (type) {
            case Wire.PING -> {
                // liveness only; lastReceived is already updated
            }
            case Wire.REQUEST -> {
                if (!refusing) {
                    onRequest();
                }
            }
            case Wire.REQUEST_DATA -> {
                long n = dataLength();
                if (refusing) {
                    skip(n);
                } else {
                    onRequestData(Wire.seq(inHeader), n);
                }
            }
            case Wire.RESPONSE_DATA -> {
                long n = dataLength();
                if (refusing) {
                    skip(n);
                } else {
                    onResponseData(Wire.seq(inHeader), n);
                }
            }
            case Wire.ACK -> {
                if (!refusing) {
                    onAck(Wire.seq(inHeader), Wire.status(inHeader));
                }
            }
            default -> throw new ProtocolViolation("unknown frame type " + type);
        }
    }

    private long dataLength() throws ProtocolViolation {
        long n = Wire.length(inHeader);
        if (n <= 0 || n > TcpSettings.MAX_FRAME) {
            throw new ProtocolViolation("payload frame of " + n + " bytes");
        }
        return n;
    }

    // ------------------------------------------------------------------ responder

    private void onRequest() throws IOException, InterruptedException {
        if (inboundActive) {
            throw new ProtocolViolation("request " + Wire.seq(inHeader) + " before the payload of " + inboundSeq);
        }
        long seq = Wire.seq(inHeader);
        int code = Wire.op(inHeader);
        long remoteAddress = Wire.remoteAddress(inHeader);
        long length = Wire.length(inHeader);
        int rkey = Wire.rkey(inHeader);
        int immediate = Wire.immediate(inHeader);
        boolean hasImmediate = (Wire.flags(inHeader) & Wire.FLAG_IMMEDIATE) != 0;
        if (length < 0) {
            throw new ProtocolViolation("request " + seq + " with negative length");
        }
        Opcode op = switch (code) {
            case 0 -> Opcode.WRITE;
            case 1 -> Opcode.WRITE_WITH_IMM;
            case 2 -> Opcode.SEND;
            case 3 -> Opcode.SEND_WITH_IMM;
            case 4 -> Opcode.READ;
            default -> throw new ProtocolViolation("request " + seq + " with unknown opcode " + code);
        };
        switch (op) {
            case WRITE, WRITE_WITH_IMM -> {
                RemoteTarget target = checkRemote(remoteAddress, rkey, length, Access.REMOTE_WRITE);
                if (target == null && length > 0) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                    return;
                }
                RecvOp recv = null;
                if (op == Opcode.WRITE_WITH_IMM) {
                    recv = takeRecv();
                    if (recv == null) {
                        refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                        return;
                    }
                }
                MemoryCursor cursor = length == 0 ? null : MemoryCursor.range(target.region(), target.grant(),
                        target.regionOffset(remoteAddress), length);
                beginInbound(seq, op, length, cursor, true, recv, hasImmediate, immediate);
            }
            case SEND, SEND_WITH_IMM -> {
                RecvOp recv = takeRecv();
                if (recv == null) {
                    refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                    return;
                }
                if (recv.capacity < length) {
                    channel.completeRecv(this, recv, new Completion(recv.request.wrId(), WcStatus.LOC_LEN_ERR,
                            WcOpcode.RECV, 0, false, 0, 0));
                    refuse(seq, WcStatus.REM_INV_REQ_ERR);
                    return;
                }
                MemoryCursor cursor = length == 0 ? null : MemoryCursor.over(recv.request.sgList());
                beginInbound(seq, op, length, cursor, false, recv, hasImmediate, immediate);
            }
            case READ -> {
                RemoteTarget source = checkRemote(remoteAddress, rkey, length, Access.REMOTE_READ);
                if (source == null && length > 0) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                    return;
                }
                if (queuedReads.incrementAndGet() > transport.settings().maxQueueDepth()) {
                    queuedReads.decrementAndGet();
                    refuse(seq, WcStatus.REM_INV_REQ_ERR);
                    return;
                }
                if (length == 0) {
                    queuedReads.decrementAndGet();
                    owePeer(new Ack(seq, WcStatus.SUCCESS, false), Wire.HEADER_BYTES);
                } else {
                    owePeer(new ReadResponse(seq, source.region(), source.grant(),
                            source.regionOffset(remoteAddress), length), Wire.HEADER_BYTES + length);
                }
            }
            default -> throw new ProtocolViolation("request " + seq + " with opcode " + op);
        }
    }

    /**
     * Where {@code [address, address + length)} with {@code rkey} may be accessed with {@code access}, or null.
     * An odd rkey names a grant and is looked up in this channel's grant table only, so another channel's
     * grant is as unknown here as a made-up key; an even one names a region registered with remote access
     * (the deprecated whole-region path). A zero-length request touches no memory and, as in verbs, is not
     * checked.
     */
    private RemoteTarget checkRemote(long address, int rkey, long length, Access access) {
        if (length == 0) {
            return null;
        }
        String refusal;
        if ((rkey & 1) != 0) {
            TcpGrant g = channel.grantByRkey(rkey);
            if (g != null && g.permits(address, length, access)) {
                return new RemoteTarget(g.tcpRegion(), g);
            }
            refusal = g == null ? "no such grant on this channel" : !g.isValid() ? "grant revoked"
                    : !g.access().contains(access) ? "access" : "outside the grant's slice";
        } else {
            TcpRegion r = transport.regionByRkey(rkey);
            if (r != null && r.isOpen() && r.allows(access) && r.contains(address, length)) {
                return new RemoteTarget(r, null);
            }
            refusal = r == null || !r.isOpen() ? "no such region" : !r.allows(access) ? "access" : "bounds";
        }
        transport.telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
        TcpTransport.LOG.debug("channel {}: refused {} of {} bytes at 0x{} rkey {} from {}: {}", channel.id(),
                access, length, Long.toHexString(address), Integer.toUnsignedString(rkey, 16), peer, refusal);
        return null;
    }

    private RecvOp takeRecv() throws InterruptedException {
        readerWaitingLocally = true;
        try {
            return channel.takeRecv(this, transport.settings().rnrWait());
        } finally {
            lastReceived = System.nanoTime(); // the wait was ours, not the peer's silence
            readerWaitingLocally = false;
        }
    }

    private void beginInbound(long seq, Opcode op, long length, MemoryCursor target, boolean remoteRegion,
                              RecvOp recv, boolean hasImmediate, int immediate) throws ClosedChannelException {
        inboundSeq = seq;
        inboundOp = op;
        inboundLength = length;
        inboundRemaining = length;
        inboundTarget = target;
        inboundIntoRemoteRegion = remoteRegion;
        inboundRecv = recv;
        inboundHasImmediate = hasImmediate;
        inboundImmediate = immediate;
        inboundActive = true;
        if (length == 0) {
            finishInbound();
        }
    }

    private void onRequestData(long seq, long n) throws IOException {
        if (!inboundActive || seq != inboundSeq || n > inboundRemaining) {
            throw new ProtocolViolation("payload frame for request " + seq + " of " + n + " bytes unexpected");
        }
        if (!receiveInto(inboundTarget, n)) {
            inboundActive = false;
            if (inboundIntoRemoteRegion) {
                // the region was closed while the payload arrived: nothing is reported as placed
                transport.telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
                refuse(seq, WcStatus.REM_ACCESS_ERR);
            } else {
                channel.completeRecv(this, inboundRecv, new Completion(inboundRecv.request.wrId(),
                        WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, false, 0, 0));
                refuse(seq, WcStatus.REM_OP_ERR);
            }
            return;
        }
        inboundRemaining -= n;
        if (inboundRemaining == 0) {
            finishInbound();
        }
    }

    private void finishInbound() throws ClosedChannelException {
        inboundActive = false;
        // acknowledged only now: the requester reports success only for bytes that are in place. Queued before
        // the receive completes, so an owner that closes the channel on that completion still sends it (finish)
        owePeer(new Ack(inboundSeq, WcStatus.SUCCESS, false), Wire.HEADER_BYTES);
        if (inboundRecv != null) {
            WcOpcode opcode = inboundOp == Opcode.WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
            channel.completeRecv(this, inboundRecv, new Completion(inboundRecv.request.wrId(), WcStatus.SUCCESS, opcode,
                    inboundLength, inboundHasImmediate, inboundHasImmediate ? inboundImmediate : 0, 0));
            inboundRecv = null;
        }
    }

    /**
     * Reads {@code n} payload bytes straight into the memory under {@code cursor}, one lease per piece. If a
     * region is closed on the way, the rest of the bytes are read and dropped (the stream stays in step) and
     * false is returned.
     */
    private boolean receiveInto(MemoryCursor cursor, long n) throws IOException {
        while (n > 0) {
            TcpRegion region = cursor.region();
            long k = Math.min(n, Math.min(cursor.pieceRemaining(), TcpSettings.MAX_FRAME));
            if (!cursor.acquire()) {
                skip(n);
                return false;
            }
            readerRegion = region;
            try {
                readFully(region.segment().asSlice(cursor.regionOffset(), k).asByteBuffer());
            } catch (IllegalStateException e) {
                // the owner freed the memory without closing the region first: the stream is lost
                throw new IOException("memory of " + region + " is no longer accessible", e);
            } finally {
                readerRegion = null;
                cursor.release();
            }
            cursor.advance(k);
            n -= k;
        }
        return true;
    }

    /** Refuses a peer request: negative acknowledgement, channel in ERROR, drop everything until the peer hangs up. */
    private void refuse(long seq, WcStatus status) throws ClosedChannelException {
        endCause.compareAndSet(null, EndCause.REFUSED_PEER);
        refusingSince = System.nanoTime();
        refusing = true;
        channel.markRefusing(this);
        owePeer(new Ack(seq, status, true), Wire.HEADER_BYTES);
    }

    /**
     * Queues a frame the reader owes the peer, after waiting for room in the writer queue
     * ({@code writer.queue.frames}, {@code writer.queue.bytes}; one frame is always admitted into an empty
     * queue). While it waits the reader reads nothing more, so a peer that floods requests meets TCP's own
     * back-pressure. If the writer then makes no progress for {@code keepalive.timeout.ms} — the peer sends but
     * never reads — the connection is cut and the peer named in the log.
     */
    private void owePeer(Outbound item, long bytes) throws ClosedChannelException {
        PeerLimits limits = transport.settings().limits();
        if (!hasRoom(limits, bytes)) {
            long waitStart = System.nanoTime();
            long stall = transport.settings().keepaliveTimeout().toNanos();
            readerWaitingLocally = true; // our writer's backlog, not the peer's silence
            try {
                while (!hasRoom(limits, bytes)) {
                    long now = System.nanoTime();
                    if (now - Math.max(waitStart, lastSent) > stall) {
                        TcpTransport.LOG.warn("channel {}: peer {} (connected from {}) does not read what it asked "
                                        + "for: {} frames / {} bytes queued for it, no progress for {} ms; cutting the "
                                        + "connection", channel.id(), peer, socketPeer(), owedFrames.get(),
                                owedBytes.get(), TimeUnit.NANOSECONDS.toMillis(stall));
                        abort(EndCause.PEER_NOT_READING);
                        throw new ClosedChannelException();
                    }
                    if (endCause.get() != null) {
                        throw new ClosedChannelException();
                    }
                    readerBackPressured = true;
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
                    readerBackPressured = false;
                }
            } finally {
                readerWaitingLocally = false;
                lastReceived = System.nanoTime();
            }
        }
        int frames = owedFrames.incrementAndGet();
        owedBytes.addAndGet(bytes);
        if (frames > owedFramesHighWater) {
            owedFramesHighWater = frames;
            transport.noteOwedFrames(frames);
        }
        enqueue(item);
    }

    /** The socket's remote address: where the bytes really come from, whatever the peer claimed. */
    private Object socketPeer() {
        try {
            return socket.getRemoteAddress();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private boolean hasRoom(PeerLimits limits, long bytes) {
        int frames = owedFrames.get();
        return frames == 0 || (frames < limits.writerQueueFrames() && owedBytes.get() + bytes <= limits.writerQueueBytes());
    }

    /** Writer: a frame the reader queued has gone out (or was dropped). */
    private void settle(long bytes) {
        owedFrames.decrementAndGet();
        owedBytes.addAndGet(-bytes);
        if (readerBackPressured) {
            LockSupport.unpark(reader);
        }
    }

    /** Most frames queued for the peer at once so far; for tests. */
    int owedFramesHighWater() {
        return owedFramesHighWater;
    }

    // ------------------------------------------------------------------ requester side of the reader

    private void onResponseData(long seq, long n) throws IOException {
        SendOp op = channel.inFlight(this, seq);
        if (op == null || op.readTarget == null || n > op.readTarget.remaining()) {
            throw new ProtocolViolation("READ response frame for " + seq + " of " + n + " bytes unexpected");
        }
        if (!receiveInto(op.readTarget, n)) {
            // our own destination region was closed under the READ
            endCause.compareAndSet(null, EndCause.LOCAL_ERROR);
            channel.finish(this, op, WcStatus.LOC_PROT_ERR, EndCause.LOCAL_ERROR.vendorCode());
            abort(EndCause.LOCAL_ERROR);
        }
    }

    private void onAck(long seq, int statusCode) throws ProtocolViolation {
        SendOp op = channel.inFlight(this, seq);
        if (op == null) {
            throw new ProtocolViolation("acknowledgement for unknown request " + seq);
        }
        WcStatus status = WcStatus.fromCode(statusCode);
        if (status.isSuccess()) {
            if (op.readTarget != null && op.readTarget.remaining() != 0) {
                throw new ProtocolViolation("READ " + seq + " acknowledged with " + op.readTarget.remaining()
                        + " bytes missing");
            }
            channel.finish(this, op, WcStatus.SUCCESS, 0);
        } else {
            endCause.compareAndSet(null, EndCause.REFUSED_BY_PEER);
            channel.finish(this, op, status, 0);
            abort(EndCause.REFUSED_BY_PEER);
        }
    }

    // ================================================================== writer

    private final ByteBuffer outHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private final ByteBuffer dataHeader = ByteBuffer.allocateDirect(Wire.HEADER_BYTES);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final ByteBuffer[] firstFrame = new ByteBuffer[3];

    /** Thrown inside the writer to stop after a refusal went out or on STOP. */
    private static final class WriterDone extends Exception {
        private static final long serialVersionUID = 1L;

        WriterDone() {
            super(null, null, false, false);
        }
    }

    private void writeLoop() {
        TRANSPORT_THREAD.set(Boolean.TRUE);
        ArrayDeque<Outbound> waitingData = new ArrayDeque<>();
        try {
            while (true) {
                Outbound item = outbox.poll();
                if (item != null && isData(item) && !waitingData.isEmpty()) {
                    waitingData.addLast(item); // keep data in posting order
                    continue;
                }
                if (item == null) {
                    item = waitingData.pollFirst();
                }
                if (item == null) {
                    item = outbox.take();
                }
                // a poster sending inline holds the socket: wait for it (it claimed only with nothing queued,
                // so whatever we hold was posted after its request)
                sendLock.lock();
                try {
                    if (isData(item)) {
                        sendData(item, waitingData);
                    } else {
                        sendControl(item);
                    }
                    unsent.decrementAndGet();
                } finally {
                    sendLock.unlock();
                }
            }
        } catch (WriterDone done) {
            // normal end
        } catch (ClosedChannelException e) {
            abort(EndCause.LOCAL_CLOSE);
        } catch (IOException e) {
            TcpTransport.LOG.debug("channel {}: sending to {} failed: {}", channel.id(), peer, e.toString());
            abort(EndCause.PEER_VANISHED);
        } catch (InterruptedException e) {
            abort(EndCause.LOCAL_CLOSE);
        } catch (RuntimeException | Error e) {
            TcpTransport.LOG.error("channel {}: writer failed", channel.id(), e);
            abort(EndCause.LOCAL_ERROR);
        } finally {
            writerRegion = null;
            threadEnded();
        }
    }

    private static boolean isData(Outbound o) {
        return o instanceof SendRequest || o instanceof ReadResponse;
    }

    /** Sends the control items waiting in the outbox; data items found on the way wait their turn. */
    private void drainControl(ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        Outbound o;
        while ((o = outbox.poll()) != null) {
            if (isData(o)) {
                waitingData.addLast(o);
            } else {
                sendControl(o);
                unsent.decrementAndGet();
            }
        }
    }

    private void sendControl(Outbound item) throws IOException, WriterDone {
        switch (item) {
            case Stop _ -> throw new WriterDone();
            case Finish _ -> {
                // everything queued before the close went out (control first): end of stream, then stop
                socket.shutdownOutput();
                throw new WriterDone();
            }
            case Ping _ -> {
                pingQueued.set(false);
                Wire.header(outHeader, Wire.PING, 0, 0, 0, 0, 0, 0, 0, 0);
                writeFully(outHeader);
            }
            case Ack a -> {
                settle(Wire.HEADER_BYTES);
                writeAck(a);
            }
            default -> throw new IllegalStateException("not a control item: " + item);
        }
    }

    private void writeAck(Ack a) throws IOException, WriterDone {
        Wire.header(outHeader, Wire.ACK, 0, a.status().code(), 0, a.seq(), 0, 0, 0, 0);
        writeFully(outHeader);
        if (a.refusal()) {
            // nothing else goes out after a refusal; the peer hangs up when it reads it
            socket.shutdownOutput();
            throw new WriterDone();
        }
    }

    private void sendData(Outbound item, ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        switch (item) {
            case SendRequest s -> sendRequest(s.op(), waitingData);
            case ReadResponse r -> sendReadResponse(r, waitingData);
            default -> throw new IllegalStateException("not a data item: " + item);
        }
    }

    /**
     * Sends one request: its header, then its payload in frames of at most {@code frame.size}; the header goes
     * out in the same gathering write as the first frame (one system call for a small WRITE or SEND). Between
     * frames the control items waiting in the outbox go out, unless {@code waitingData} is null (a poster
     * sending a small request inline: one frame, the writer sends the rest).
     */
    private void sendRequest(SendOp op, ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        if (channel.isFailed(this) || op.done) {
            return; // flushed with the rest when the connection ends
        }
        var r = op.request;
        boolean imm = r.opcode().hasImmediate();
        Wire.header(outHeader, Wire.REQUEST, r.opcode().verbsOpcode(), 0, r.immediate(), op.seq, r.remoteAddress(),
                op.length, r.rkey(), imm ? Wire.FLAG_IMMEDIATE : 0);
        if (!op.carriesPayload() || op.length == 0) {
            writeFully(outHeader);
            return;
        }
        boolean headerSent = false;
        MemoryCursor source = MemoryCursor.over(r.sgList());
        while (source.remaining() > 0) {
            TcpRegion region = source.region();
            long k = Math.min(frameSize, source.pieceRemaining());
            if (!region.acquire()) {
                // our own source region was closed under the request: stop, nothing half-sent is acknowledged
                endCause.compareAndSet(null, EndCause.LOCAL_ERROR);
                channel.finish(this, op, WcStatus.LOC_PROT_ERR, EndCause.LOCAL_ERROR.vendorCode());
                abort(EndCause.LOCAL_ERROR);
                throw new WriterDone();
            }
            writerRegion = region;
            try {
                Wire.header(dataHeader, Wire.REQUEST_DATA, 0, 0, 0, op.seq, 0, k, 0, 0);
                ByteBuffer payload = region.segment().asSlice(source.regionOffset(), k).asByteBuffer();
                if (headerSent) {
                    gather[0] = dataHeader;
                    gather[1] = payload;
                    writeFully(gather);
                } else {
                    firstFrame[0] = outHeader;
                    firstFrame[1] = dataHeader;
                    firstFrame[2] = payload;
                    writeFully(firstFrame);
                    headerSent = true;
                }
            } finally {
                gather[1] = null;
                firstFrame[2] = null;
                writerRegion = null;
                region.release();
            }
            source.advance(k);
            if (waitingData != null) {
                drainControl(waitingData);
            }
            if (channel.isFailed(this)) {
                throw new WriterDone(); // refused or closed meanwhile: the rest of the payload is moot
            }
        }
    }

    private void sendReadResponse(ReadResponse r, ArrayDeque<Outbound> waitingData) throws IOException, WriterDone {
        try {
            long offset = r.offset();
            long left = r.length();
            while (left > 0) {
                long k = Math.min(frameSize, left);
                if (!r.acquire()) {
                    // closed while we serve it: the requester gets REM_ACCESS_ERR, never the partial bytes as success
                    transport.telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
                    endCause.compareAndSet(null, EndCause.REFUSED_PEER);
                    refusingSince = System.nanoTime();
                    refusing = true;
                    channel.markRefusing(this);
                    writeAck(new Ack(r.seq(), WcStatus.REM_ACCESS_ERR, true));
                    return; // not reached: a refusal ends the writer
                }
                writerRegion = r.region();
                try {
                    Wire.header(outHeader, Wire.RESPONSE_DATA, 0, 0, 0, r.seq(), 0, k, 0, 0);
                    gather[0] = outHeader;
                    gather[1] = r.region().segment().asSlice(offset, k).asByteBuffer();
                    writeFully(gather);
                } finally {
                    gather[1] = null;
                    writerRegion = null;
                    r.release();
                }
                offset += k;
                left -= k;
                drainControl(waitingData);
            }
            Wire.header(outHeader, Wire.ACK, 0, WcStatus.SUCCESS.code(), 0, r.seq(), 0, 0, 0, 0);
            writeFully(outHeader);
        } finally {
            queuedReads.decrementAndGet();
            settle(Wire.HEADER_BYTES + r.length());
        }
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            socket.write(b);
            lastSent = System.nanoTime();
        }
    }

    private void writeFully(ByteBuffer[] bufs) throws IOException {
        ByteBuffer last = bufs[bufs.length - 1];
        while (last.hasRemaining()) {
            socket.write(bufs);
            lastSent = System.nanoTime();
        }
    }

    /** The peer broke the protocol; the connection is cut. */
    private static final class ProtocolViolation extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolViolation(String message) {
            super(message);
        }
    }

    @Override
    public String toString() {
        return "TcpConnection[channel " + channel.id() + " to " + peer + "]";
    }
}
