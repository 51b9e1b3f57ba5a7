package org.objrdma.transport.tcp.internal;

import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one TCP connection of a connected {@link TcpChannel}: its lifecycle — two threads started once, the cause
 * it ends with, a graceful finish or a cut, and the hand-back to the channel once both threads stopped. What
 * the threads do is in the classes it wires together, one concept each:
 * <ul>
 *   <li>{@link FrameReader} — the reader thread: frame headers, payloads straight into registered memory;</li>
 *   <li>{@link Responder} — a NIC's responder for the peer's requests: rkey, access and bounds checks,
 *       placement, acknowledgements, refusals;</li>
 *   <li>{@link Requester} — the peer's answers to our own requests;</li>
 *   <li>{@link FrameWriter} — the writer thread (and inline sends from posting threads): everything sent;</li>
 *   <li>{@link PeerBacklog} — the bound on what the reader owes the peer, where the reader waits for the writer;</li>
 *   <li>{@link Keepalive} — pings and the silence rule.</li>
 * </ul>
 * The reader never writes to the socket, so two peers serving each other's large READs cannot deadlock with
 * full socket buffers; it only queues work for the writer.
 *
 * <p><b>Ending.</b> The first cause recorded wins ({@link #abort}); closing the socket wakes both threads, and
 * when the second one stops the channel flushes its unfinished work with that cause.
 */
final class TcpConnection {

    /**
     * How long a local close waits for the writer to send what was already queued (acknowledgements above all)
     * and for the peer to hang up before it cuts the socket: a peer's last WRITE_WITH_IMM must not lose its acknowledgement because the
     * owner closed the channel right after its receive completed. Bounded: a writer stuck on a peer that does
     * not read is cut as before.
     */
    private static final long FINISH_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** {@link FrameWriter#DIRECT_SEND_MAX}, named here for the tests that size their requests by it. */
    static final long DIRECT_SEND_MAX = FrameWriter.DIRECT_SEND_MAX;
    /** Set on this transport's own threads (readers run completion callbacks), which never send inline. */
    private static final ThreadLocal<Boolean> TRANSPORT_THREAD = new ThreadLocal<>();

    private final TcpTransport transport;
    private final TcpChannel channel;
    private final SocketChannel socket;
    private final PeerIdentity peer;
    private final Thread readerThread;
    private final Thread writerThread;
    private final Keepalive keepalive;
    private final FrameWriter writer;
    private final PeerBacklog backlog;
    private final FrameReader reader;
    private final Responder responder;
    private final Requester requester;

    private final AtomicReference<EndCause> endCause = new AtomicReference<>();
    private final AtomicInteger runningThreads = new AtomicInteger(2);
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile Runnable endHook;
    /** When a graceful end began ({@link #beginFinish}); its grace runs from here. */
    private volatile long finishBegan;
    /** After we refused a peer request: everything that arrives is read and dropped until the peer hangs up. */
    private volatile long refusingSince;
    private volatile boolean refusing;

    TcpConnection(TcpTransport transport, TcpChannel channel, SocketChannel socket, PeerIdentity peer) {
        this.transport = transport;
        this.channel = channel;
        this.socket = socket;
        this.peer = peer;
        this.keepalive = new Keepalive(this);
        this.writer = new FrameWriter(this, socket, transport.settings().frameSize());
        this.backlog = new PeerBacklog(this);
        this.reader = new FrameReader(this, socket);
        this.responder = new Responder(this);
        this.requester = new Requester(this);
        String base = transport.threadPrefix() + "-ch" + channel.id();
        this.readerThread = Thread.ofPlatform().daemon().name(base + "-reader").unstarted(() -> runThread(reader::readLoop));
        this.writerThread = Thread.ofPlatform().daemon().name(base + "-writer").unstarted(() -> runThread(writer::writeLoop));
    }

    private void runThread(Runnable body) {
        TRANSPORT_THREAD.set(Boolean.TRUE);
        try {
            body.run();
        } finally {
            threadEnded();
        }
    }

    /** True on one of this transport's own threads (they run completion callbacks and never send inline). */
    static boolean onTransportThread() {
        return TRANSPORT_THREAD.get() != null;
    }

    /** Starts both threads; call once, after the handshake reply went out. */
    void start() {
        if (started.compareAndSet(false, true)) {
            keepalive.restart();
            readerThread.start();
            writerThread.start();
        }
    }

    PeerIdentity peer() {
        return peer;
    }

    TcpChannel channel() {
        return channel;
    }

    TcpTransport transport() {
        return transport;
    }

    SocketChannel socket() {
        return socket;
    }

    Keepalive keepalive() {
        return keepalive;
    }

    FrameWriter writer() {
        return writer;
    }

    PeerBacklog backlog() {
        return backlog;
    }

    FrameReader reader() {
        return reader;
    }

    Responder responder() {
        return responder;
    }

    Requester requester() {
        return requester;
    }

    Thread readerThread() {
        return readerThread;
    }

    boolean isOwnThread(Thread t) {
        return t == readerThread || t == writerThread;
    }

    /** True if a thread of this connection holds a lease on {@code region} right now. */
    boolean touches(TcpRegion region) {
        return reader.region() == region || writer.region() == region;
    }

    /** {@link FrameWriter#send}: queued for the writer, or claimed for an inline send (true). */
    boolean send(SendOp op) {
        return writer.send(op);
    }

    /** {@link FrameWriter#sendClaimed}. */
    void sendClaimed(SendOp op) {
        writer.sendClaimed(op);
    }

    boolean isRefusing() {
        return refusing;
    }

    long refusingSince() {
        return refusingSince;
    }

    /** We refused the peer: from now on everything it sends is dropped, and the channel takes no new work. */
    void startRefusing() {
        refusingSince = System.nanoTime();
        refusing = true;
        channel.markRefusing(this);
    }

    /** True once an end cause is recorded. */
    boolean isEnding() {
        return endCause.get() != null;
    }

    /** Ends the connection; the first cause given wins. Idempotent, never blocks on the threads. */
    void abort(EndCause cause) {
        endCause.compareAndSet(null, cause);
        TcpTransport.closeQuietly(socket);
        writer.enqueue(Outbound.STOP);
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
            writer.enqueueFinish();
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

    /** True once both threads have died (or never started). */
    boolean threadsGone() {
        return !started.get() || (!readerThread.isAlive() && !writerThread.isAlive());
    }

    /**
     * Joins both threads, until {@code deadline} at most, once they have ended ({@link #awaitEnded}): the
     * {@code ended} latch falls inside the last thread's final block, a moment before the thread itself is gone.
     * True if neither is alive any more. Not on one of the connection's own threads.
     */
    boolean joinThreads(long deadline) {
        if (isOwnThread(Thread.currentThread()) || !started.get()) {
            return !started.get();
        }
        try {
            for (Thread t : new Thread[] {readerThread, writerThread}) {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    t.join(java.time.Duration.ofNanos(left));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !readerThread.isAlive() && !writerThread.isAlive();
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
        keepalive.tick(now);
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

    /** Most frames queued for the peer at once so far; for tests. */
    int owedFramesHighWater() {
        return backlog.owedFramesHighWater();
    }

    @Override
    public String toString() {
        return "TcpConnection[channel " + channel.id() + " to " + peer + "]";
    }
}
