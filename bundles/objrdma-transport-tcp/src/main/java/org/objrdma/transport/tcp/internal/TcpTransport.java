package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.transport.tcp.StandaloneTcpTransport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.transport.common.Closer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP transport itself, free of OSGi so tests and benchmarks drive the real thing directly;
 * {@link TcpTransportComponent} publishes one as a service.
 *
 * <p><b>Keys.</b> Region rkeys are random, even, non-zero 32-bit values from {@link SecureRandom}, never two
 * alike while registered; grant rkeys are odd and live in their channel's table ({@link TcpChannel#grant}).
 * 32 bits is the verbs width and is a second check only: the access control is the per-channel access key
 * (random, {@code key.length} bytes) both ends prove in the handshake before any frame is read, and the
 * channel's grant table, the only place its connection looks up a grant.
 *
 * <p><b>Ownership and shutdown.</b> The transport owns its agent socket, timer, channels' connections and
 * threads. {@link #close()} runs in one visible order, once: refuse new work; close every channel (all begin
 * their graceful end together, then each is completed against one deadline: its work flushed, its threads
 * stopped and joined); close the agent (no new connections, accept thread joined); invalidate every region
 * still registered (waiting for leases); stop the timer and join its thread. Each wait is bounded by
 * {@code shutdown.timeout.ms}; no wait depends on a peer beyond the finish grace.
 */
public final class TcpTransport implements StandaloneTcpTransport {

    static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);

    /** {@link #name()} of every TCP transport. */
    public static final String NAME = "tcp";

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final TcpSettings settings;
    private final Supplier<Telemetry> telemetry;
    private final SecureRandom random = new SecureRandom();
    private final String threadPrefix = "objrdma-tcp-" + INSTANCES.incrementAndGet();

    private final ConcurrentHashMap<Integer, TcpRegion> regionsByRkey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, TcpChannel> channels = new ConcurrentHashMap<>();
    private final Set<TcpConnection> connections = ConcurrentHashMap.newKeySet();
    /** Connections that ended whose threads may not have died yet (pruned by the timer, joined by close). */
    private final java.util.Queue<TcpConnection> endedConnections = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicLong nextChannelId = new AtomicLong();
    private final Object registrationLock = new Object();

    private final ScheduledThreadPoolExecutor timer;
    /** The timer's one thread, joined at close. */
    private volatile Thread timerThread;
    private final MemoryAgent agent;
    private volatile boolean open;
    private volatile String unavailableBecause;
    private volatile int owedFramesHighWater;

    private TcpTransport(TcpSettings settings, Supplier<Telemetry> telemetry) throws IOException {
        this.settings = settings;
        this.telemetry = telemetry;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Thread.ofPlatform().daemon().name(threadPrefix + "-timer").unstarted(r);
            timerThread = t; // one core thread, never replaced while it runs its tasks (they catch everything)
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        try {
            this.agent = new MemoryAgent(this);
        } catch (IOException | RuntimeException e) {
            timer.shutdownNow();
            throw e;
        }
    }

    /**
     * Starts a transport: binds the agent socket, starts the accept thread and the keepalive timer.
     *
     * @param telemetry where counts go; called on every count, so it may change (DS dynamic reference)
     * @throws IOException if the agent cannot bind
     */
    public static TcpTransport start(TcpSettings settings, Supplier<Telemetry> telemetry) throws IOException {
        TcpTransport t = new TcpTransport(settings, telemetry);
        t.open = true;
        t.agent.start();
        long tick = Math.max(5, settings.keepaliveInterval().toMillis() / 2);
        t.timer.scheduleWithFixedDelay(t::keepaliveTick, tick, tick, TimeUnit.MILLISECONDS);
        LOG.info("TCP transport listening on {} (advertised {})", settings.bindAddress().getHostAddress() + ":"
                + t.agent.address().getPort(), t.agent.address());
        return t;
    }

    TcpSettings settings() {
        return settings;
    }

    Telemetry telemetry() {
        Telemetry t = telemetry.get();
        return t == null ? Telemetry.NOOP : t;
    }

    SecureRandom random() {
        return random;
    }

    String threadPrefix() {
        return threadPrefix;
    }

    MemoryAgent agent() {
        return agent;
    }

    /** Where this transport's agent is dialed. */
    public InetSocketAddress agentAddress() {
        return agent.address();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public TransportLevel level() {
        return TransportLevel.TCP;
    }

    /** The flows of the TCP transport: its memory agent serves the cuObject flow and it runs RC sessions. */
    static final Set<String> FLOWS = Set.of(Transport.FLOW_AGENT_ONE_SIDED, Transport.FLOW_RC_SESSION);

    @Override
    public Set<String> flows() {
        return FLOWS;
    }

    @Override
    public boolean isAvailable() {
        return open;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return open ? Optional.empty() : Optional.ofNullable(unavailableBecause);
    }

    // ------------------------------------------------------------------ regions

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        requireOpen();
        if (segment == null || access == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "segment and access are required");
        }
        if (!segment.isNative()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "only native (off-heap) memory can be registered");
        }
        if (segment.byteSize() == 0) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a region needs at least one byte");
        }
        if (access.isEmpty()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "the access set must not be empty");
        }
        if (access.contains(Access.REMOTE_WRITE) && !access.contains(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "REMOTE_WRITE requires LOCAL_WRITE, as in verbs");
        }
        if (segment.isReadOnly() && (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE))) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a read-only segment cannot be registered for writing");
        }
        if (!segment.isAccessibleBy(Thread.ofVirtual().unstarted(() -> { }))) {
            // the transport's own threads read and write it
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the segment must be usable from any thread (shared, global or automatic arena), not confined");
        }
        TcpRegion region;
        synchronized (registrationLock) {
            if (regionsByRkey.size() >= settings.maxRegions()) {
                throw new TransportException(TransportError.RESOURCE_EXHAUSTED,
                        "max.regions (" + settings.maxRegions() + ") regions are registered");
            }
            int rkey;
            do {
                rkey = random.nextInt() & ~1; // even: odd rkeys name grants (TcpChannel#grant)
            } while (rkey == 0 || regionsByRkey.containsKey(rkey));
            int lkey = random.nextInt() | 1;
            region = new TcpRegion(this, segment, EnumSet.copyOf(access), lkey, rkey);
            regionsByRkey.put(rkey, region);
        }
        telemetry().increment(Counter.TRANSPORT_REGIONS_REGISTERED);
        return region;
    }

    TcpRegion regionByRkey(int rkey) {
        return regionsByRkey.get(rkey);
    }

    /** Called by {@link TcpRegion#close()} once, as soon as the region refuses new leases. */
    void forgetRegion(TcpRegion region) {
        if (regionsByRkey.remove(region.rkey(), region)) {
            telemetry().increment(Counter.TRANSPORT_REGIONS_DEREGISTERED);
        }
    }

    /** Cuts every connection a thread of which holds a lease on {@code region}. */
    void abortConnectionsTouching(TcpRegion region) {
        for (TcpConnection c : connections) {
            if (c.touches(region)) {
                LOG.warn("channel {}: cutting the connection to {}: it stalls on closed region {}",
                        c.channel().id(), c.peer(), region);
                c.abort(EndCause.REGION_CLOSED);
            }
        }
    }

    /** Regions registered now; for tests and the shell. */
    public int regionCount() {
        return regionsByRkey.size();
    }

    // ------------------------------------------------------------------ channels

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        requireOpen();
        if (options == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "options are required");
        }
        if (options.sendQueueDepth() > settings.maxQueueDepth() || options.recvQueueDepth() > settings.maxQueueDepth()) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "queue depths " + options.sendQueueDepth()
                    + "/" + options.recvQueueDepth() + " exceed max.queue.depth " + settings.maxQueueDepth());
        }
        TcpChannel channel;
        synchronized (registrationLock) {
            if (channels.size() >= settings.maxChannels()) {
                throw new TransportException(TransportError.RESOURCE_EXHAUSTED,
                        "max.channels (" + settings.maxChannels() + ") channels are open");
            }
            // a key the control plane handed out (the cuObject agent key), else a fresh random one
            byte[] key = options.accessKey();
            if (key == null) {
                key = new byte[settings.keyLength()];
                random.nextBytes(key);
            }
            channel = new TcpChannel(this, nextChannelId.incrementAndGet(), key, options);
            channels.put(channel.id(), channel);
        }
        telemetry().increment(Counter.TRANSPORT_CHANNELS_OPENED);
        return channel;
    }

    @Override
    public List<ChannelInfo> channels() {
        List<ChannelInfo> out = new ArrayList<>();
        for (TcpChannel channel : channels.values()) {
            ChannelInfo info = channel.info();
            if (info.state() != ChannelState.CLOSED) {
                out.add(info);
            }
        }
        out.sort(java.util.Comparator.comparingLong(ChannelInfo::id));
        return List.copyOf(out);
    }

    TcpChannel channel(long id) {
        return channels.get(id);
    }

    void channelClosed(TcpChannel channel) {
        if (channels.remove(channel.id(), channel)) {
            telemetry().increment(Counter.TRANSPORT_CHANNELS_CLOSED);
        }
    }

    /** Channels open now; for tests and the shell. */
    public int channelCount() {
        return channels.size();
    }

    /** Connections alive now (each with two threads); for tests and the shell. */
    public int connectionCount() {
        return connections.size();
    }

    TcpConnection newConnection(TcpChannel channel, SocketChannel socket, PeerIdentity peer) {
        TcpConnection c = new TcpConnection(this, channel, socket, peer);
        connections.add(c);
        return c;
    }

    void connectionEnded(TcpConnection c) {
        connections.remove(c);
        endedConnections.add(c); // its last thread is leaving; close() joins it if it is still around then
    }

    /** Forgets ended connections whose threads are gone; the timer calls it. */
    private void pruneEndedConnections() {
        endedConnections.removeIf(TcpConnection::threadsGone);
    }

    /** Most frames any connection of this transport queued for its peer at once; for tests. */
    int owedFramesHighWater() {
        return owedFramesHighWater;
    }

    void noteOwedFrames(int frames) {
        if (frames > owedFramesHighWater) {
            owedFramesHighWater = frames; // racy max: a test hook, off the data path except on a new high
        }
    }

    void authenticationRefused(Object from, long channelId) {
        // not counted as REMOTE_ACCESS_DENIED: no memory was addressed
        LOG.info("memory agent {}: refused {} for channel {}: wrong access key or no such channel",
                agent.address(), from, channelId);
    }

    // ------------------------------------------------------------------ timer

    /** Runs {@code task} after {@code delay} on the timer; null once the transport has shut its timer down. */
    ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        try {
            return timer.schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("TCP transport timer task failed", e);
                }
            }, Math.max(1, delay.toNanos()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    private void keepaliveTick() {
        pruneEndedConnections();
        long now = System.nanoTime();
        for (TcpConnection c : connections) {
            try {
                c.tick(now);
            } catch (RuntimeException e) {
                LOG.error("keepalive of {} failed", c, e);
            }
        }
    }

    // ------------------------------------------------------------------ shutdown

    private void requireOpen() throws TransportException {
        if (!open) {
            throw new TransportException(TransportError.UNAVAILABLE, "the TCP transport is closed");
        }
    }

    /**
     * Shuts down in the order the class comment gives. Idempotent; never throws.
     */
    @Override
    public void close() {
        synchronized (registrationLock) {
            if (!open) {
                return;
            }
            open = false;
            unavailableBecause = "the TCP transport was shut down";
        }
        // every channel begins its graceful end first, then all are completed against one deadline: peers that
        // never hang up (frozen, gone) cost one finish grace in all, not one each
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        List<TcpChannel> openChannels = new ArrayList<>(channels.values());
        List<ChannelClosing> closing = new ArrayList<>(openChannels.size());
        for (TcpChannel c : openChannels) {
            ChannelClosing begun = c.beginClose();
            if (begun != null) {
                closing.add(begun);
            }
        }
        for (ChannelClosing c : closing) {
            c.complete(deadline);
        }
        for (TcpConnection c : new ArrayList<>(connections)) {
            // a channel another thread is closing right now (its close began before ours): cut and wait for it too
            c.abort(EndCause.LOCAL_CLOSE);
            if (!c.isOwnThread(Thread.currentThread())) {
                c.awaitEnded(Math.max(0, deadline - System.nanoTime()));
            }
        }
        for (TcpConnection c : endedConnections) {
            if (!c.joinThreads(deadline)) {
                LOG.warn("TCP transport: the threads of {} did not stop within {}", c, settings.shutdownTimeout());
            }
        }
        endedConnections.clear();
        // every one released even if an earlier one throws; a failure is logged (close never throws)
        Closer.closeAllQuietly(e -> LOG.warn("TCP transport {}: a release failed while closing", agent.address(), e),
                agent, Closer.all(new ArrayList<>(regionsByRkey.values())), this::stopTimer);
        LOG.info("TCP transport {} closed ({} channels, regions invalidated)", agent.address(), openChannels.size());
    }

    /** Stops the timer and waits for its thread (bounded; not on the timer thread itself). */
    private void stopTimer() {
        timer.shutdownNow();
        try {
            Thread timerThread = this.timerThread;
            if (!timer.awaitTermination(settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    || (timerThread != null && timerThread != Thread.currentThread()
                    && !timerThread.join(settings.shutdownTimeout()))) {
                LOG.warn("TCP transport timer did not stop within {}", settings.shutdownTimeout());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes a socket (or anything) whose close failing changes nothing for the caller: logged at TRACE. */
    static void closeQuietly(AutoCloseable c) {
        Closer.closeAllQuietly(e -> LOG.trace("close of {} failed", c, e), c);
    }

    @Override
    public String toString() {
        return "TcpTransport[" + (open ? agent.address() : "closed") + "]";
    }
}
