package org.objrdma.staging.internal;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The staging pool itself, free of OSGi: the owner that runs a borrow, a return and a shutdown across its
 * parts.
 *
 * <ul>
 *   <li>{@link SizeClasses}: the power-of-two buffer sizes a request rounds up to;</li>
 *   <li>{@link LimitLedger}: admits a borrow under the byte, buffer and per-principal limits (and makes it
 *       wait, fairly, for room);</li>
 *   <li>{@link PooledBuffers}: the registered buffers (Commons Pool keyed by binding and class), idle
 *       eviction and trimming;</li>
 *   <li>{@link TransportBindings}: registration with transports, the preferred one, those gone;</li>
 *   <li>{@link OverdueLeaseCheck}: reports leases held too long;</li>
 *   <li>{@link StagingCounters}: stats and telemetry counts.</li>
 * </ul>
 *
 * <p>Ownership: this object owns every buffer and registration it creates. It closes them in one order —
 * deregister, then free — exactly once per buffer: idle buffers when they are evicted, replaced by a
 * transport swap or the pool closes; lent buffers when they come back. A lease still out when the pool
 * closes keeps its memory and registration until it is released (a peer may still be writing into it).
 *
 * <p>Transports: {@link #useTransport} names the preferred one, which borrows that name no transport use;
 * {@link #borrow(long, PrincipalId, String, Duration, Transport)} borrows on a given one (a session on its
 * channel's transport). {@link #transportGone} retires a binding: its idle buffers are destroyed at once, lent
 * ones when their lease returns.
 */
public final class BufferPool implements StagingPool, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);
    /** Longest wait honoured: about 73 years, far from the overflow of nanosecond arithmetic. */
    private static final long MAX_WAIT_NANOS = Long.MAX_VALUE >> 2;

    /** Replaced whole by {@link #reconfigure}; the size classes never change (they are final below). */
    private volatile StagingSettings settings;
    private final SizeClasses classes;
    private final LimitLedger ledger;
    private final PooledBuffers buffers;
    private final TransportBindings bindings;
    private final StagingCounters counters;
    private final InstantSource clock;
    private final LeaseReports reports;
    private final OverdueLeaseCheck leaseCheck;

    /** Guards the pool's lifecycle (closed, retiring) and reconfiguration. */
    private final Object lifecycleLock = new Object();
    private volatile boolean closed;
    /** Closed for borrows by {@link #retire}, closing for good when its last lease comes back. */
    private volatile boolean retiring;
    private final AtomicBoolean drained = new AtomicBoolean();
    /** Dedicated (unpooled) leases out now; they count in {@link #stats()} and shutdown waits for them too. */
    private final Set<DedicatedLease> dedicatedLeases = ConcurrentHashMap.newKeySet();

    /**
     * @param transport the transport to register with first, or null until {@link #useTransport} names one
     * @param telemetry read on every count, so a telemetry service can come and go
     * @param clock     the lease clock: borrow times and deadlines
     */
    BufferPool(StagingSettings settings, Transport transport, Supplier<Telemetry> telemetry, InstantSource clock,
               LeaseReports reports) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.counters = new StagingCounters(Objects.requireNonNull(telemetry, "telemetry"));
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reports = Objects.requireNonNull(reports, "reports");
        this.classes = new SizeClasses(settings.minBufferSize(), settings.maxBufferSize());
        this.ledger = new LimitLedger(settings, classes);
        this.bindings = new TransportBindings(classes, transport);
        this.buffers = new PooledBuffers(settings);
        this.leaseCheck = new OverdueLeaseCheck(buffers.live(), () -> this.settings.leaseDeadline(), clock, reports,
                counters);
        leaseCheck.every(settings.leaseCheckPeriod());
    }

    /** Whether {@code next} can be applied to this pool live: everything but the size classes can. */
    boolean canReconfigure(StagingSettings next) {
        return next.minBufferSize() == settings.minBufferSize() && next.maxBufferSize() == settings.maxBufferSize();
    }

    /**
     * Applies {@code next} live: the limits (to charges from now on; what is lent stays lent), the Commons Pool
     * bounds and idle eviction, the waits, deadlines, stack tracking, zeroing and the lease check period.
     *
     * @throws IllegalArgumentException if the size classes differ ({@link #canReconfigure}): that needs a new pool
     */
    void reconfigure(StagingSettings next) {
        if (!canReconfigure(next)) {
            throw new IllegalArgumentException("the size classes of a running pool do not change: build a new pool");
        }
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            StagingSettings previous = settings;
            // a higher class bound goes to the Commons Pool before the ledger admits more; a lower one after
            if (next.maxBuffersPerClass() >= previous.maxBuffersPerClass()) {
                buffers.maxPerClass(next.maxBuffersPerClass());
                ledger.limit(LimitLedger.Limits.of(next));
            } else {
                ledger.limit(LimitLedger.Limits.of(next));
                buffers.maxPerClass(next.maxBuffersPerClass());
            }
            buffers.idleRules(next, previous);
            settings = next;
            if (!next.leaseCheckPeriod().equals(previous.leaseCheckPeriod())) {
                leaseCheck.every(next.leaseCheckPeriod());
            }
        }
    }

    /** With the system clock and WARN-log reports. */
    public static BufferPool create(StagingSettings settings, Transport transport, Supplier<Telemetry> telemetry) {
        return new BufferPool(settings, transport, telemetry, InstantSource.system(), new LoggingLeaseReports());
    }

    // ---------------------------------------------------------------- transport binding

    /**
     * Makes {@code transport} the preferred one: borrows that name no transport register with it from now on
     * (null: such borrows fail NO_TRANSPORT). The previously preferred transport stays bound: its leases and
     * idle buffers remain valid until {@link #transportGone} says it went away.
     */
    public void useTransport(Transport transport) {
        bindings.prefer(transport);
    }

    /**
     * {@code transport} went away: its binding retires. Its idle buffers are deregistered and freed now, lent
     * ones when their lease returns; a later borrow naming it fails NO_TRANSPORT. If it was the preferred one,
     * no transport is preferred until {@link #useTransport} names the next.
     */
    public void transportGone(Transport transport) {
        TransportBinding retired = bindings.retire(transport);
        if (retired != null && !closed) {
            buffers.clear(retired);
        }
    }

    /** The preferred transport, or null. */
    public Transport transport() {
        TransportBinding b = bindings.preferred();
        return b == null ? null : b.transport();
    }

    /** Transports with a live binding now. */
    int boundTransports() {
        return bindings.count();
    }

    // ---------------------------------------------------------------- borrow and return

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint) throws StagingException {
        return borrow(size, principal, holderHint, settings.borrowWait());
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
            throws StagingException {
        return borrow(size, principal, holderHint, maxWait, null);
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait, Transport on)
            throws StagingException {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(holderHint, "holderHint");
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
        if (size < 1 || size > classes.largest()) {
            throw fail(StagingStatus.INVALID_SIZE,
                    "size " + size + " is not between 1 and the largest buffer size " + classes.largest());
        }
        if (closed) {
            throw fail(StagingStatus.CLOSED, "the staging pool is shutting down");
        }
        TransportBinding binding = bindingFor(on);
        int classIndex = classes.indexFor(size);
        long start = System.nanoTime();
        boolean waited;
        try {
            LimitLedger.Grant grant = ledger.charge(classIndex, principal, waitNanos(maxWait));
            waited = grant.waited();
            classIndex = grant.classIndex();
        } catch (StagingException e) {
            if (e.status() == StagingStatus.LIMIT) {
                counters.waitedInVain();
            } else {
                counters.failed();
            }
            throw e;
        }
        if (waited) {
            counters.waited();
        }
        StagingBuffer buffer;
        try {
            Duration left = Duration.ofNanos(waitNanos(maxWait) - (System.nanoTime() - start));
            Duration poolWait = PooledBuffers.poolWait(left);
            for (int attempt = 0; ; attempt++) {
                try {
                    buffer = buffers.take(binding, classIndex, poolWait, () -> closed);
                    break;
                } catch (StagingException e) {
                    // a borrow that follows the preference follows it to the next transport when its own went away
                    TransportBinding now = bindings.preferred();
                    if (on != null || e.status() != StagingStatus.NO_TRANSPORT || now == null || now == binding
                            || attempt >= PooledBuffers.SWAP_RETRIES) {
                        throw e;
                    }
                    binding = now;
                }
            }
        } catch (StagingException e) {
            ledger.release(classIndex, principal);
            counters.failed();
            throw e;
        }
        PooledLease lease = new PooledLease(this, buffer, size, principal, holderHint, clock.instant(),
                settings.trackStacks() ? new Throwable("staging lease borrowed here by " + holderHint) : null);
        buffer.lentAs(lease);
        counters.borrowed(false);
        return lease;
    }

    /**
     * One unpooled buffer of exactly {@code size} bytes ({@link DedicatedLease}), for a consumer that needs one
     * contiguous region above the largest class. Charged (bytes only) before the allocation, given back after
     * the buffer is freed; registered with {@code on} (or the preferred transport).
     */
    @Override
    public StagingLease borrowDedicated(long size, PrincipalId principal, String holderHint, Transport on)
            throws StagingException {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(holderHint, "holderHint");
        if (size < 1 || size > Integer.MAX_VALUE) {
            throw fail(StagingStatus.INVALID_SIZE, "a dedicated buffer is 1.." + Integer.MAX_VALUE + " bytes, not " + size);
        }
        if (closed) {
            throw fail(StagingStatus.CLOSED, "the staging pool is shutting down");
        }
        TransportBinding binding = bindingFor(on);
        try {
            ledger.chargeDedicated(size, principal);
        } catch (StagingException e) {
            if (e.status() == StagingStatus.LIMIT) {
                counters.refusedAtLimit();
            } else {
                counters.failed();
            }
            throw e;
        }
        DedicatedLease lease;
        try {
            lease = DedicatedLease.allocate(this, binding.transport(), size, principal, holderHint, clock.instant());
        } catch (TransportException e) {
            ledger.releaseDedicated(size, principal);
            throw fail(StagingStatus.REGISTRATION_FAILED, "transport " + binding.transport().name()
                    + " refused to register a dedicated " + size + "-byte buffer: " + e.getMessage());
        } catch (OutOfMemoryError | RuntimeException e) {
            ledger.releaseDedicated(size, principal);
            throw fail(StagingStatus.REGISTRATION_FAILED, "could not allocate a dedicated " + size + "-byte buffer: " + e);
        }
        dedicatedLeases.add(lease);
        counters.borrowed(true);
        return lease;
    }

    /** The second half of {@link DedicatedLease#release()}: called once per lease, after its memory is freed. */
    void dedicatedReturned(DedicatedLease lease) {
        dedicatedLeases.remove(lease);
        ledger.releaseDedicated(lease.size(), lease.principal());
        counters.returned();
    }

    void reportDoubleReturn(DedicatedLease lease) {
        counters.doubleReturn();
        LOG.warn("Staging lease returned twice (ignored): {}", lease);
    }

    /** {@link TransportBindings#bindingFor}, counting a refusal as a failure. */
    private TransportBinding bindingFor(Transport on) throws StagingException {
        try {
            return bindings.bindingFor(on);
        } catch (StagingException e) {
            counters.failed();
            throw e;
        }
    }

    private static long waitNanos(Duration maxWait) {
        return maxWait.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) > 0 ? MAX_WAIT_NANOS : maxWait.toNanos();
    }

    /** The second half of {@link PooledLease#release()}: called once per lease. */
    void giveBack(PooledLease lease) {
        StagingBuffer buffer = lease.buffer();
        int classIndex = buffer.classIndex();
        buffer.returned();
        try {
            if (settings.scrubOnReturn() && !closed) {
                // the region allows remote READ of the whole buffer: the next holder's peer must not see these bytes
                buffer.segment().fill((byte) 0);
            }
            if (closed) {
                buffers.destroy(buffer);
            } else {
                buffers.giveBack(buffer);
            }
        } catch (RuntimeException e) {
            LOG.error("Returning a staging buffer failed; destroying it instead", e);
            buffers.discard(buffer);
        } finally {
            // only now: the ledger must never admit a borrow the buffer pool could not serve yet
            ledger.release(classIndex, lease.principal());
            counters.returned();
            closeIfDrained();
        }
    }

    void reportDoubleReturn(PooledLease lease) {
        counters.doubleReturn();
        reports.doubleReturn(lease);
    }

    private StagingException fail(StagingStatus status, String message) {
        counters.failed();
        return new StagingException(status, message);
    }

    // ---------------------------------------------------------------- overdue leases

    /** Reports each lease held past the deadline, once per lease ({@link OverdueLeaseCheck}); tests call it. */
    int checkOverdueLeases() {
        return leaseCheck.run();
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops lending (CLOSED), waits up to {@code shutdown.timeout} for leases to come back, reports each one
     * still out, and releases every idle buffer. Buffers of leases still out keep their memory and
     * registration until released: freeing memory a peer may still write into is worse than holding it.
     * Bounded; idempotent.
     *
     * @return the number of leases still out
     */
    public int shutdown() {
        synchronized (lifecycleLock) {
            if (closed && !retiring) {
                return 0;
            }
            closed = true;
            retiring = false; // from here on the deadline below decides, as for any shutdown
        }
        ledger.close();
        leaseCheck.stop();
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        boolean interrupted = false;
        while ((ledger.buffersLent() > 0 || !dedicatedLeases.isEmpty()) && System.nanoTime() < deadline
                && !interrupted) {
            try {
                TimeUnit.MILLISECONDS.sleep(10);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        int stillOut = 0;
        for (StagingBuffer b : buffers.live()) {
            PooledLease lease = b.currentLease();
            if (lease != null && lease.isActive()) {
                stillOut++;
                reports.unreturnedAtShutdown(lease);
            }
        }
        for (DedicatedLease lease : dedicatedLeases) {
            stillOut++;
            LOG.warn("Staging pool shutdown: dedicated lease still out, freed when it is returned: {}", lease);
        }
        buffers.close();
        if (stillOut > 0) {
            LOG.warn("Staging pool closed with {} lease(s) still out after {} ms; their buffers are released "
                    + "when the leases are", stillOut, settings.shutdownTimeout().toMillis());
        } else {
            LOG.info("Staging pool closed; every buffer released");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return stillOut;
    }

    @Override
    public void close() {
        shutdown();
    }

    /**
     * Stops lending (CLOSED, queued borrows too) without a deadline: the pool a reconfiguration replaced.
     * Idle buffers go at once. Leases still out keep working; each one's buffer is freed when it comes back, and the pool closes
     * for good (Commons Pool, idle buffers, lease check) when the last one has. A later {@link #shutdown()}
     * still bounds the wait. Idempotent.
     */
    public void retire() {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
            retiring = true;
        }
        ledger.close();
        buffers.clearIdle(); // its idle buffers are of no more use: deregistered and freed now
        closeIfDrained();
    }

    /** Whether a retired pool still has leases out. */
    boolean isDraining() {
        return retiring && !drained.get();
    }

    private void closeIfDrained() {
        if (retiring && ledger.buffersLent() == 0 && drained.compareAndSet(false, true)) {
            leaseCheck.stop();
            buffers.close();
            LOG.info("Previous staging pool (classes {}..{} bytes) closed: its last lease came back",
                    settings.minBufferSize(), classes.largest());
        }
    }

    public boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------- views

    @Override
    public long maxBufferSize() {
        return classes.largest();
    }

    @Override
    public StagingStats stats() {
        return counters.snapshot(classes, buffers.live(), dedicatedLeases, buffers.borrowedCount());
    }

    StagingSettings settings() {
        return settings;
    }

    LimitLedger ledger() {
        return ledger;
    }

    /** Buffers that exist now, lent or idle. */
    int liveBufferCount() {
        return buffers.live().size();
    }

    /** Buffers Commons Pool made and destroyed since start: its own counters. */
    long createdCount() {
        return buffers.createdCount();
    }

    long destroyedCount() {
        return buffers.destroyedCount();
    }

    long returnedCount() {
        return buffers.returnedCount();
    }
}
