package org.objrdma.verbs.internal.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.transport.common.Closer;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.DeviceAttributes;
import org.objrdma.verbs.internal.ffi.Errno;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.QpModifier;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs RC transport of one device port. It owns the device context, one protection domain, the
 * completion poller thread, and whatever regions and channels callers have not closed themselves.
 *
 * <p>Close order, visible in the log at DEBUG and in {@link #closeSteps()}: stop the poller; for every
 * channel, queue pair to ERR, flush, destroy the queue pair; then every completion queue; then every memory
 * region; then the protection domain; then the context. Closing twice is harmless. The library is not
 * the transport's: its owner unloads it after closing every transport.
 *
 * <p>Lifecycle lock: registering, opening a channel and closing a region or channel hold the read side;
 * {@link #close()} holds the write side while it tears down, so nothing is half-registered or destroyed
 * twice.
 */
public final class VerbsTransport implements Transport, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);

    /** Access every queue pair grants its peer; each region then decides what it allows. */
    private static final int QP_ACCESS = IbvConstants.IBV_ACCESS_LOCAL_WRITE | IbvConstants.IBV_ACCESS_REMOTE_WRITE
            | IbvConstants.IBV_ACCESS_REMOTE_READ;

    /**
     * How the poller waits while work is outstanding.
     *
     * @param idle         spin or back off
     * @param maxParkNanos the longest backoff park; bounds how late a batch deadline is noticed
     */
    public record PollerSettings(IdleStrategy.Kind idle, long maxParkNanos) {
        public static final PollerSettings DEFAULT = new PollerSettings(IdleStrategy.Kind.BACKOFF, 1_000_000);
    }

    private final VerbsLibrary library;
    private final DeviceInfo device;
    private final MemorySegment context;
    private final MemorySegment pd;
    private final DataPath dataPath;
    private final boolean grantsByWindows;
    private final QpModifier modifier;
    private final CompletionPoller poller;
    private final Supplier<Telemetry> telemetry;
    private final CopyOnWriteArrayList<VerbsChannel> channels = new CopyOnWriteArrayList<>();
    private final Set<VerbsMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextChannelId = new AtomicLong(1);
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    /** Why the port or device cannot carry traffic now (an asynchronous event said so), or null. */
    private volatile String unavailableBecause;
    private volatile AsyncEventReader events;
    private final List<String> closeSteps = Collections.synchronizedList(new ArrayList<>());
    private final SecureRandom psnSource = new SecureRandom();

    private VerbsTransport(VerbsLibrary library, MemorySegment context, MemorySegment pd, DeviceInfo device,
                           PollerSettings settings, Supplier<Telemetry> telemetry) {
        this.library = library;
        this.context = context;
        this.pd = pd;
        this.device = device;
        this.dataPath = library.dataPath(context);
        this.grantsByWindows = device.device().memoryWindowsType2B() && dataPath.hasMemoryWindows();
        this.modifier = new QpModifier(library);
        this.telemetry = telemetry;
        this.poller = new CompletionPoller("objrdma-verbs-poller-" + device.name(), () -> channels,
                new IdleStrategy(settings.idle(), settings.maxParkNanos()));
    }

    /**
     * A transport on an open device context. On success the transport owns {@code context}; on failure the
     * caller still does.
     *
     * @throws VerbsException if the protection domain cannot be allocated
     * @throws IllegalStateException if the driver's ops table lacks a data-path verb
     */
    public static VerbsTransport open(VerbsLibrary library, MemorySegment context, DeviceInfo device,
                                      PollerSettings settings, Supplier<Telemetry> telemetry) throws VerbsException {
        MemorySegment pd = library.allocPd(context);
        try {
            VerbsTransport t = new VerbsTransport(library, context, pd, device, settings, telemetry);
            t.poller.start();
            return t;
        } catch (RuntimeException e) {
            library.deallocPd(pd);
            throw e;
        }
    }

    @Override
    public String name() {
        return device.transportName();
    }

    @Override
    public TransportLevel level() {
        return TransportLevel.VERBS_RC;
    }

    /** RC sessions only: no DC targets, and no memory agent for the cuObject flow. */
    public static final Set<String> FLOWS = Set.of(Transport.FLOW_RC_SESSION);

    @Override
    public Set<String> flows() {
        return FLOWS;
    }

    @Override
    public boolean isAvailable() {
        return !closed && unavailableBecause == null;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        if (closed) {
            return Optional.of(name() + " is closed");
        }
        return Optional.ofNullable(unavailableBecause);
    }

    /** The port or device stopped working ({@code cause} says how): channels are refused until {@link #markAvailable}. */
    public void markUnavailable(String cause) {
        unavailableBecause = cause;
    }

    /** The port is ACTIVE again. */
    public void markAvailable() {
        unavailableBecause = null;
    }

    /**
     * Starts reading the context's asynchronous events for {@code listener}; events already queued are
     * delivered. Stopped by {@link #close()} before the context closes. At most once.
     */
    public synchronized void watchAsyncEvents(AsyncEventReader.Listener listener) {
        if (events != null || closing.get()) {
            return;
        }
        AsyncEventReader reader = new AsyncEventReader(library, context, device.name(), device.port(), listener);
        events = reader;
        reader.start();
    }

    /** True while the asynchronous event reader runs; for tests. */
    public boolean isWatchingAsyncEvents() {
        AsyncEventReader r = events;
        return r != null && r.isRunning();
    }

    public DeviceInfo device() {
        return device;
    }

    VerbsLibrary library() {
        return library;
    }

    DataPath dataPath() {
        return dataPath;
    }

    MemorySegment protectionDomain() {
        return pd;
    }

    /**
     * True if grants are type-2 memory windows: the device says {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B} and its
     * driver fills the window verbs of the ops table. Otherwise each grant registers its slice.
     */
    boolean grantsByMemoryWindows() {
        return grantsByWindows;
    }

    QpModifier modifier() {
        return modifier;
    }

    CompletionPoller poller() {
        return poller;
    }

    Telemetry telemetry() {
        Telemetry t = telemetry.get();
        return t == null ? Telemetry.NOOP : t;
    }

    ReentrantReadWriteLock lifecycle() {
        return lifecycle;
    }

    // ---- regions ----------------------------------------------------------------------------------------

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        if (segment == null || access == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "segment and access must not be null");
        }
        if (!segment.isNative()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "only native memory can be registered; this segment is on the Java heap");
        }
        if (segment.byteSize() == 0) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a zero-length segment cannot be registered");
        }
        if (!segment.scope().isAlive()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "the segment's arena is already closed");
        }
        if (access.isEmpty()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "access must name at least one right");
        }
        if (access.contains(Access.REMOTE_WRITE) && !access.contains(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "verbs requires LOCAL_WRITE with REMOTE_WRITE");
        }
        lifecycle.readLock().lock();
        try {
            if (closed || closing.get()) {
                throw new TransportException(TransportError.UNAVAILABLE, name() + " is closed");
            }
            VerbsLibrary.RegisteredMemory mr;
            try {
                // MW_BIND lets the channels bind grants (memory windows) to it; it opens nothing by itself
                mr = library.regMr(pd, segment, Access.toVerbsFlags(access)
                        | (grantsByWindows ? IbvConstants.IBV_ACCESS_MW_BIND : 0));
            } catch (VerbsException e) {
                throw refused(e);
            }
            VerbsMemoryRegion region = new VerbsMemoryRegion(this, segment, mr, access);
            regions.add(region);
            telemetry().increment(Counter.TRANSPORT_REGIONS_REGISTERED);
            return region;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** A region's owner closed it: deregister unless the transport's close already did. */
    void deregister(VerbsMemoryRegion region, MemorySegment mr) {
        lifecycle.readLock().lock();
        try {
            if (regions.remove(region)) {
                int rc = library.deregMr(mr);
                if (rc != 0) {
                    LOG.warn("{}: ibv_dereg_mr of {} failed: {}", name(), region, Errno.describe(rc));
                }
                telemetry().increment(Counter.TRANSPORT_REGIONS_DEREGISTERED);
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    // ---- channels ---------------------------------------------------------------------------------------

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        if (options == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "options must not be null");
        }
        if (options.accessKey() != null) {
            // the Channel contract: without a connect handshake a key could not be enforced, so it is not taken
            throw new TransportException(TransportError.INVALID_ARGUMENT, "verbs queue pairs take no access key:"
                    + " RC has no connect handshake to demand it (peers are named by QPN and GID)");
        }
        DeviceAttributes attrs = device.device();
        int send = options.sendQueueDepth();
        int recv = options.recvQueueDepth();
        if (send > attrs.maxQpWr() || recv > attrs.maxQpWr()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "queue depths " + send + "/" + recv
                    + " exceed the device's " + attrs.maxQpWr() + " work requests per queue");
        }
        if (options.maxSge() > attrs.maxSge()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "maxSge " + options.maxSge() + " exceeds the device's " + attrs.maxSge());
        }
        long cqe = (long) send + recv;
        if (cqe > attrs.maxCqe()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "a completion queue of " + cqe + " entries exceeds the device's " + attrs.maxCqe());
        }
        lifecycle.readLock().lock();
        try {
            if (closed || closing.get()) {
                throw new TransportException(TransportError.UNAVAILABLE, name() + " is closed");
            }
            String down = unavailableBecause;
            if (down != null) {
                throw new TransportException(TransportError.UNAVAILABLE, down);
            }
            Arena arena = Arena.ofShared();
            MemorySegment cq = null;
            MemorySegment qp = null;
            try {
                // one CQ per channel, as deep as both queues: it can never overrun
                cq = library.createCq(context, (int) cqe, MemorySegment.NULL);
                VerbsLibrary.CreatedQp created = library.createRcQp(pd,
                        new VerbsLibrary.QpRequest(cq, cq, send, recv, options.maxSge(), options.maxSge(), 0));
                qp = created.qp();
                int rc = toInit(qp);
                if (rc != 0) {
                    throw new VerbsException("ibv_modify_qp", rc, "RESET→INIT");
                }
                int psn = psnSource.nextInt(1 << 24);
                VerbsChannel channel = new VerbsChannel(nextChannelId.getAndIncrement(), this, options, arena, cq, qp,
                        created.qpNum(), psn);
                channels.add(channel);
                telemetry().increment(Counter.TRANSPORT_CHANNELS_OPENED);
                return channel;
            } catch (VerbsException | RuntimeException e) {
                if (qp != null) {
                    library.destroyQp(qp);
                }
                if (cq != null) {
                    library.destroyCq(cq);
                }
                arena.close();
                if (e instanceof VerbsException ve) {
                    throw refused(ve);
                }
                throw (RuntimeException) e;
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * RESET → INIT with the attributes every queue pair of this transport gets: the port, P_Key index 0 and
     * {@link #QP_ACCESS}. Used when a channel is opened and again when it is reset. Returns 0 or an errno.
     */
    int toInit(MemorySegment qp) {
        return modifier.toInit(qp, device.port(), QP_ACCESS);
    }

    /** A channel's owner closed it. */
    void channelClosed(VerbsChannel channel) {
        if (channels.remove(channel)) {
            telemetry().increment(Counter.TRANSPORT_CHANNELS_CLOSED);
        }
    }

    /** The channels not yet closed; for tests and the shell. */
    List<VerbsChannel> openChannels() {
        return List.copyOf(channels);
    }

    @Override
    public List<org.objrdma.api.transport.ChannelInfo> channels() {
        List<org.objrdma.api.transport.ChannelInfo> out = new ArrayList<>();
        for (VerbsChannel channel : channels) {
            org.objrdma.api.transport.ChannelInfo info = channel.info();
            if (info.state() != org.objrdma.api.transport.ChannelState.CLOSED) {
                out.add(info);
            }
        }
        out.sort(java.util.Comparator.comparingLong(org.objrdma.api.transport.ChannelInfo::id));
        return List.copyOf(out);
    }

    private TransportException refused(VerbsException e) {
        TransportError error = switch (e.errno()) {
            case Errno.ENOMEM, Errno.ENOSPC, Errno.EAGAIN -> TransportError.RESOURCE_EXHAUSTED;
            case Errno.EINVAL, Errno.EFAULT -> TransportError.INVALID_ARGUMENT;
            default -> TransportError.IO;
        };
        return new TransportException(error, name() + ": " + e.getMessage(), e);
    }

    // ---- close ------------------------------------------------------------------------------------------

    void closeStep(String what, int rc) {
        String step = rc == 0 ? what : what + " (" + Errno.describe(rc) + ")";
        closeSteps.add(step);
        if (rc != 0) {
            LOG.warn("{}: destroying {} failed: {}", name(), what, Errno.describe(rc));
        } else {
            LOG.debug("{}: destroyed {}", name(), what);
        }
    }

    /** What close destroyed, in order, with any error; for tests. */
    List<String> closeSteps() {
        synchronized (closeSteps) {
            return List.copyOf(closeSteps);
        }
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        // the event reader first: it reads the context, which closes last
        AsyncEventReader reader;
        synchronized (this) {
            reader = events;
        }
        if (reader != null) {
            reader.stop();
            closeStep("event reader", 0);
        }
        // the poller, outside the lock: a batch callback on it may still register or close things
        poller.stop();
        closeStep("poller", 0);
        lifecycle.writeLock().lock();
        try {
            closed = true;
            List<VerbsChannel> open = new ArrayList<>(channels);
            // every step runs even if one throws (the first failure is thrown afterwards, later ones suppressed):
            // every queue pair before any completion queue, then the regions, the protection domain, the context
            Closer.closeAll(
                    Closer.all(open.stream().<AutoCloseable>map(ch -> ch::closeQueuePair).toList()),
                    Closer.all(open.stream().<AutoCloseable>map(ch -> ch::closeCompletionQueue).toList()),
                    Closer.all(open.stream().<AutoCloseable>map(ch -> () -> channelClosed(ch)).toList()),
                    Closer.all(new ArrayList<>(regions).stream().<AutoCloseable>map(r -> () -> deregisterAtClose(r))
                            .toList()),
                    () -> closeStep("pd", library.deallocPd(pd)),
                    () -> closeStep("context", library.closeDevice(context)));
        } finally {
            lifecycle.writeLock().unlock();
        }
        LOG.debug("{} closed: {}", name(), closeSteps());
    }

    private void deregisterAtClose(VerbsMemoryRegion region) {
        if (regions.remove(region)) {
            region.markClosed();
            closeStep("mr " + region.lengthAndKey(), library.deregMr(region.mr()));
            telemetry().increment(Counter.TRANSPORT_REGIONS_DEREGISTERED);
        }
    }

    @Override
    public String toString() {
        return "VerbsTransport[" + name() + (closed ? ", closed" : "") + "]";
    }
}
