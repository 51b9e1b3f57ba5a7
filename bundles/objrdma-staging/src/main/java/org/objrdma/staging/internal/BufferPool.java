package org.objrdma.staging.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The staging pool itself, free of OSGi: a Commons Pool keyed by class size holds the buffers, a
 * {@link LimitLedger} enforces the limits, and a scheduled check reports leases held too long.
 *
 * <p>Ownership: this object owns every buffer and registration it creates. It closes them in one order —
 * deregister, then free — exactly once per buffer: idle buffers when they are evicted, replaced by a
 * transport swap or the pool closes; lent buffers when they come back. A lease still out when the pool
 * closes keeps its memory and registration until it is released (a peer may still be writing into it).
 *
 * <p>Transports: the pool keeps one binding per live transport. {@link #useTransport} names the preferred
 * one, which borrows that name no transport use; {@link #borrow(long, PrincipalId, String, Duration, Transport)}
 * borrows on a given one (a session on its channel's transport). A better transport appearing changes
 * only the preference: leases and idle buffers of the others stay valid. {@link #transportGone} retires a
 * binding: its idle buffers are destroyed at once, lent ones when their lease returns.
 */
public final class BufferPool implements StagingPool, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BufferPool.class);
    /**
     * The Commons Pool never has to wait (the ledger admits only what it can serve), except for the instant
     * its evictor holds an idle buffer under test; this is the most such a borrow may add to its wait.
     */
    private static final Duration EVICTION_GRACE = Duration.ofMillis(50);
    /** Longest wait passed on to Commons Pool, which converts it to nanoseconds. */
    private static final Duration POOL_WAIT_CAP = Duration.ofMinutes(1);
    /** Longest wait honoured: about 73 years, far from the overflow of nanosecond arithmetic. */
    private static final long MAX_WAIT_NANOS = Long.MAX_VALUE >> 2;
    /** Retries when buffers fail validation (a region the transport closed) between creation and hand-out. */
    private static final int SWAP_RETRIES = 3;

    /** Replaced whole by {@link #reconfigure}; the size classes never change (they are final below). */
    private volatile StagingSettings settings;
    private final SizeClasses classes;
    private final LimitLedger ledger;
    private final GenericKeyedObjectPool<TransportBinding.Key, StagingBuffer> buffers;
    private final Set<StagingBuffer> liveBuffers = ConcurrentHashMap.newKeySet();
    private final Supplier<Telemetry> telemetry;
    private final InstantSource clock;
    private final LeaseReports reports;
    private final ScheduledExecutorService leaseCheck;

    private final Object bindingLock = new Object();
    /** The binding of each live transport; guarded by bindingLock. */
    private final Map<Transport, TransportBinding> bindings = new IdentityHashMap<>();
    /** Transports that went away: a borrow naming one is refused rather than taking it up again; guarded by bindingLock. */
    private final Set<Transport> gone = Collections.newSetFromMap(new WeakHashMap<>());
    /** Where borrows that name no transport register; null: such borrows fail NO_TRANSPORT. */
    private volatile TransportBinding preferred;
    private long generations; // guarded by bindingLock
    private volatile boolean closed;
    /** Closed for borrows by {@link #retire}, closing for good when its last lease comes back. */
    private volatile boolean retiring;
    private final AtomicBoolean drained = new AtomicBoolean();
    private ScheduledFuture<?> leaseCheckTask; // guarded by bindingLock

    private final LongAdder waits = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder doubleReturns = new LongAdder();
    private final LongAdder overdueLeases = new LongAdder();
    /** Dedicated (unpooled) leases out now; they count in {@link #stats()} and shutdown waits for them too. */
    private final Set<DedicatedLease> dedicatedLeases = ConcurrentHashMap.newKeySet();
    private final LongAdder dedicatedBorrows = new LongAdder();

    /**
     * @param transport the transport to register with first, or null until {@link #useTransport} names one
     * @param telemetry read on every count, so a telemetry service can come and go
     * @param clock     the lease clock: borrow times and deadlines
     */
    BufferPool(StagingSettings settings, Transport transport, Supplier<Telemetry> telemetry, InstantSource clock,
               LeaseReports reports) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reports = Objects.requireNonNull(reports, "reports");
        this.classes = new SizeClasses(settings.minBufferSize(), settings.maxBufferSize());
        this.ledger = new LimitLedger(settings, classes);
        if (transport != null) {
            synchronized (bindingLock) {
                this.preferred = bindingOf(transport);
            }
        }
        this.buffers = new GenericKeyedObjectPool<>(new BufferFactory(liveBuffers), poolConfig(settings));
        // the ledger already counts and the evictor needs no per-borrow timing: keep the hot path lean
        buffers.setCollectDetailedStatistics(false);
        buffers.setReuseCapacityOnReturn(false);
        buffers.setSwallowedExceptionListener(e -> LOG.warn("Staging pool housekeeping failed", e));
        this.leaseCheck = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "objrdma-staging-lease-check");
            t.setDaemon(true);
            return t;
        });
        synchronized (bindingLock) {
            scheduleLeaseCheck(settings.leaseCheckPeriod());
        }
    }

    /** Under bindingLock. */
    private void scheduleLeaseCheck(Duration every) {
        if (leaseCheckTask != null) {
            leaseCheckTask.cancel(false);
        }
        long period = every.toMillis();
        leaseCheckTask = leaseCheck.scheduleWithFixedDelay(this::checkLeasesSafely, period, period, TimeUnit.MILLISECONDS);
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
        synchronized (bindingLock) {
            if (closed) {
                return;
            }
            StagingSettings previous = settings;
            // a higher class bound goes to the Commons Pool before the ledger admits more; a lower one after
            if (next.maxBuffersPerClass() >= previous.maxBuffersPerClass()) {
                buffers.setMaxTotalPerKey(next.maxBuffersPerClass());
                ledger.limit(LimitLedger.Limits.of(next));
            } else {
                ledger.limit(LimitLedger.Limits.of(next));
                buffers.setMaxTotalPerKey(next.maxBuffersPerClass());
            }
            buffers.setMaxIdlePerKey(next.idlePerClass());
            buffers.setMinEvictableIdleDuration(next.idleTimeout());
            if (!next.idleTimeout().equals(previous.idleTimeout())) {
                buffers.setTimeBetweenEvictionRuns(evictionPeriod(next.idleTimeout()));
            }
            settings = next;
            if (!next.leaseCheckPeriod().equals(previous.leaseCheckPeriod())) {
                scheduleLeaseCheck(next.leaseCheckPeriod());
            }
        }
    }

    /** With the system clock and WARN-log reports. */
    public static BufferPool create(StagingSettings settings, Transport transport, Supplier<Telemetry> telemetry) {
        return new BufferPool(settings, transport, telemetry, InstantSource.system(), new LoggingLeaseReports());
    }

    private static GenericKeyedObjectPoolConfig<StagingBuffer> poolConfig(StagingSettings s) {
        GenericKeyedObjectPoolConfig<StagingBuffer> c = new GenericKeyedObjectPoolConfig<>();
        c.setMaxTotal(-1); // bytes are limited by the ledger, not by a buffer count across classes
        c.setMaxTotalPerKey(s.maxBuffersPerClass());
        c.setMaxIdlePerKey(s.idlePerClass());
        c.setMinIdlePerKey(0);
        c.setBlockWhenExhausted(true);
        c.setLifo(true); // the most recently used buffer is the warmest
        c.setTestOnBorrow(true); // never lend a buffer of an old transport
        c.setTestOnReturn(true); // release old registrations as their leases come back
        c.setTestWhileIdle(true); // and idle ones the swap missed
        c.setMinEvictableIdleDuration(s.idleTimeout());
        c.setSoftMinEvictableIdleDuration(Duration.ofMillis(-1));
        c.setTimeBetweenEvictionRuns(evictionPeriod(s.idleTimeout()));
        c.setNumTestsPerEvictionRun(-1); // every idle buffer, each run
        c.setJmxEnabled(false); // stats() and telemetry are the pool's views
        return c;
    }

    private static Duration evictionPeriod(Duration idleTimeout) {
        Duration half = idleTimeout.dividedBy(2);
        return half.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : half;
    }

    // ---------------------------------------------------------------- transport binding

    /**
     * Makes {@code transport} the preferred one: borrows that name no transport register with it from now on
     * (null: such borrows fail NO_TRANSPORT). The previously preferred transport stays bound: its leases and
     * idle buffers remain valid until {@link #transportGone} says it went away.
     */
    public void useTransport(Transport transport) {
        TransportBinding previous;
        TransportBinding next;
        synchronized (bindingLock) {
            previous = preferred;
            if (transport != null) {
                gone.remove(transport); // bound again: a fresh binding, the old buffers stay stale
            }
            next = transport == null ? null : bindingOf(transport);
            preferred = next;
        }
        if (previous != next) {
            LOG.info("Staging buffers now register with {} by default (was {})",
                    next == null ? "no transport" : next, previous == null ? "none" : previous);
        }
    }

    /**
     * {@code transport} went away: its binding retires. Its idle buffers are deregistered and freed now, lent
     * ones when their lease returns; a later borrow naming it fails NO_TRANSPORT. If it was the preferred one,
     * no transport is preferred until {@link #useTransport} names the next.
     */
    public void transportGone(Transport transport) {
        TransportBinding retired;
        synchronized (bindingLock) {
            retired = bindings.remove(transport);
            gone.add(transport);
            if (retired == null) {
                return;
            }
            retired.retire();
            if (preferred == retired) {
                preferred = null;
            }
        }
        LOG.info("Staging buffers of {} retire: the transport went away", retired);
        if (!closed) {
            for (TransportBinding.Key key : retired.keys()) {
                buffers.clear(key);
            }
        }
    }

    /** The binding of {@code transport}, made now if it has none. Under bindingLock. */
    private TransportBinding bindingOf(Transport transport) {
        return bindings.computeIfAbsent(transport, t -> new TransportBinding(t, ++generations, classes));
    }

    /** The preferred transport, or null. */
    public Transport transport() {
        TransportBinding b = preferred;
        return b == null ? null : b.transport();
    }

    /** Transports with a live binding now. */
    int boundTransports() {
        synchronized (bindingLock) {
            return bindings.size();
        }
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
                waits.increment();
                timeouts.increment();
                Telemetry t = telemetry.get();
                t.increment(Counter.STAGING_WAITS);
                t.increment(Counter.STAGING_TIMEOUTS);
            } else {
                failures.increment();
            }
            throw e;
        }
        if (waited) {
            waits.increment();
            telemetry.get().increment(Counter.STAGING_WAITS);
        }
        StagingBuffer buffer;
        try {
            Duration left = Duration.ofNanos(waitNanos(maxWait) - (System.nanoTime() - start));
            Duration poolWait = left.compareTo(EVICTION_GRACE) < 0 ? EVICTION_GRACE
                    : left.compareTo(POOL_WAIT_CAP) > 0 ? POOL_WAIT_CAP : left;
            for (int attempt = 0; ; attempt++) {
                try {
                    buffer = takeBuffer(binding, classIndex, poolWait);
                    break;
                } catch (StagingException e) {
                    // a borrow that follows the preference follows it to the next transport when its own went away
                    TransportBinding now = preferred;
                    if (on != null || e.status() != StagingStatus.NO_TRANSPORT || now == null || now == binding
                            || attempt >= SWAP_RETRIES) {
                        throw e;
                    }
                    binding = now;
                }
            }
        } catch (StagingException e) {
            ledger.release(classIndex, principal);
            failures.increment();
            throw e;
        }
        PooledLease lease = new PooledLease(this, buffer, size, principal, holderHint, clock.instant(),
                settings.trackStacks() ? new Throwable("staging lease borrowed here by " + holderHint) : null);
        buffer.lentAs(lease);
        telemetry.get().increment(Counter.STAGING_BORROWS);
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
                timeouts.increment();
                telemetry.get().increment(Counter.STAGING_TIMEOUTS);
            } else {
                failures.increment();
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
        dedicatedBorrows.increment();
        telemetry.get().increment(Counter.STAGING_BORROWS);
        return lease;
    }

    /** The second half of {@link DedicatedLease#release()}: called once per lease, after its memory is freed. */
    void dedicatedReturned(DedicatedLease lease) {
        dedicatedLeases.remove(lease);
        ledger.releaseDedicated(lease.size(), lease.principal());
        telemetry.get().increment(Counter.STAGING_RETURNS);
    }

    void reportDoubleReturn(DedicatedLease lease) {
        doubleReturns.increment();
        telemetry.get().increment(Counter.STAGING_DOUBLE_RETURNS);
        LOG.warn("Staging lease returned twice (ignored): {}", lease);
    }

    /** The binding a borrow registers with: {@code on}'s (taken up now if new), or the preferred one. */
    private TransportBinding bindingFor(Transport on) throws StagingException {
        if (on == null) {
            TransportBinding b = preferred;
            if (b == null) {
                throw fail(StagingStatus.NO_TRANSPORT, "no transport is bound to register staging buffers with");
            }
            return b;
        }
        synchronized (bindingLock) {
            TransportBinding b = bindings.get(on);
            if (b != null) {
                return b;
            }
            if (gone.contains(on)) {
                throw fail(StagingStatus.NO_TRANSPORT, "transport " + on.name() + " went away");
            }
            // the consumer saw the transport before this pool was told of it: take it up now
            b = bindingOf(on);
            LOG.debug("Staging pool takes up transport {} for a borrow that names it", b);
            return b;
        }
    }

    private static long waitNanos(Duration maxWait) {
        return maxWait.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) > 0 ? MAX_WAIT_NANOS : maxWait.toNanos();
    }

    private StagingBuffer takeBuffer(TransportBinding binding, int classIndex, Duration maxWait)
            throws StagingException {
        TransportBinding.Key key = binding.key(classIndex);
        for (int attempt = 0; ; attempt++) {
            if (!binding.isLive()) {
                throw new StagingException(StagingStatus.NO_TRANSPORT, "the transport went away during the borrow");
            }
            try {
                return buffers.borrowObject(key, maxWait);
            } catch (BufferFactory.NoTransportException e) {
                throw new StagingException(StagingStatus.NO_TRANSPORT, "the transport went away during the borrow");
            } catch (TransportException e) {
                throw new StagingException(StagingStatus.REGISTRATION_FAILED, "transport " + binding.transport().name()
                        + " refused to register a " + key + "-byte buffer: " + e.getMessage(), e);
            } catch (BufferFactory.AllocationFailedException e) {
                throw new StagingException(StagingStatus.REGISTRATION_FAILED, e.getMessage(), e);
            } catch (NoSuchElementException e) {
                // a buffer failed validation: its region closed under it (the transport is closing)
                if (!binding.isLive()) {
                    throw new StagingException(StagingStatus.NO_TRANSPORT, "the transport went away during the borrow");
                }
                if (attempt < SWAP_RETRIES) {
                    continue;
                }
                throw new StagingException(StagingStatus.REGISTRATION_FAILED,
                        "no usable " + key + "-byte buffer: " + e.getMessage(), e);
            } catch (IllegalStateException e) {
                if (closed) {
                    throw new StagingException(StagingStatus.CLOSED, "the staging pool is shutting down");
                }
                throw new StagingException(StagingStatus.REGISTRATION_FAILED, "buffer pool error: " + e.getMessage(), e);
            } catch (Exception e) {
                throw new StagingException(StagingStatus.REGISTRATION_FAILED,
                        "could not make a " + key + "-byte buffer: " + e, e);
            }
        }
    }

    /** The second half of {@link PooledLease#release()}: called once per lease. */
    void giveBack(PooledLease lease) {
        StagingBuffer buffer = lease.buffer();
        int classIndex = buffer.classIndex();
        TransportBinding.Key key = buffer.key();
        buffer.returned();
        try {
            if (settings.scrubOnReturn() && !closed) {
                // the region allows remote READ of the whole buffer: the next holder's peer must not see these bytes
                buffer.segment().fill((byte) 0);
            }
            if (closed) {
                destroyAfterClose(key, buffer);
            } else {
                buffers.returnObject(key, buffer);
                if (!buffer.binding().isLive()) {
                    // its transport went away while this buffer went back to idle: the retirement may have missed it
                    buffers.clear(key);
                }
            }
        } catch (RuntimeException e) {
            LOG.error("Returning a staging buffer failed; destroying it instead", e);
            liveBuffers.remove(buffer);
            buffer.close();
        } finally {
            // only now: the ledger must never admit a borrow the buffer pool could not serve yet
            ledger.release(classIndex, lease.principal());
            telemetry.get().increment(Counter.STAGING_RETURNS);
            closeIfDrained();
        }
    }

    private void destroyAfterClose(TransportBinding.Key key, StagingBuffer buffer) {
        try {
            buffers.invalidateObject(key, buffer);
        } catch (Exception e) {
            liveBuffers.remove(buffer);
            buffer.close();
        }
    }

    void reportDoubleReturn(PooledLease lease) {
        doubleReturns.increment();
        telemetry.get().increment(Counter.STAGING_DOUBLE_RETURNS);
        reports.doubleReturn(lease);
    }

    private StagingException fail(StagingStatus status, String message) {
        failures.increment();
        return new StagingException(status, message);
    }

    // ---------------------------------------------------------------- overdue leases

    /** Reports each lease held past the deadline, once per lease. Run by the scheduler; tests call it. */
    int checkOverdueLeases() {
        Instant now = clock.instant();
        Duration deadline = settings.leaseDeadline();
        int reported = 0;
        for (StagingBuffer b : liveBuffers) {
            PooledLease lease = b.currentLease();
            if (lease == null || !lease.isActive()) {
                continue;
            }
            Duration held = Duration.between(lease.borrowedAt(), now);
            if (held.compareTo(deadline) > 0 && lease.claimOverdueReport()) {
                overdueLeases.increment();
                telemetry.get().increment(Counter.STAGING_OVERDUE_LEASES);
                reports.overdue(lease, held, deadline);
                reported++;
            }
        }
        return reported;
    }

    private void checkLeasesSafely() {
        try {
            checkOverdueLeases();
        } catch (RuntimeException e) {
            // a failing report must not cancel the schedule
            LOG.warn("Staging lease check failed", e);
        }
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
        synchronized (bindingLock) {
            if (closed && !retiring) {
                return 0;
            }
            closed = true;
            retiring = false; // from here on the deadline below decides, as for any shutdown
        }
        ledger.close();
        leaseCheck.shutdownNow();
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
        for (StagingBuffer b : liveBuffers) {
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
        synchronized (bindingLock) {
            if (closed) {
                return;
            }
            closed = true;
            retiring = true;
        }
        ledger.close();
        buffers.clear(); // its idle buffers are of no more use: deregistered and freed now
        closeIfDrained();
    }

    /** Whether a retired pool still has leases out. */
    boolean isDraining() {
        return retiring && !drained.get();
    }

    private void closeIfDrained() {
        if (retiring && ledger.buffersLent() == 0 && drained.compareAndSet(false, true)) {
            leaseCheck.shutdownNow();
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
        List<StagingStats.SizeClass> perClass = new ArrayList<>(classes.count());
        long borrowed = 0;
        long idle = 0;
        long bytesBorrowed = 0;
        long bytesAllocated = 0;
        long[] activeIn = new long[classes.count()];
        long[] idleIn = new long[classes.count()];
        for (StagingBuffer b : liveBuffers) {
            // every binding's buffers count: a lease on a transport that is no longer preferred is still lent
            if (b.currentLease() != null) {
                activeIn[b.classIndex()]++;
            } else {
                idleIn[b.classIndex()]++;
            }
        }
        for (int i = 0; i < classes.count(); i++) {
            long size = classes.size(i);
            long active = activeIn[i];
            long idleHere = idleIn[i];
            perClass.add(new StagingStats.SizeClass(size, active, idleHere));
            borrowed += active;
            idle += idleHere;
            bytesBorrowed += active * size;
            bytesAllocated += (active + idleHere) * size;
        }
        for (DedicatedLease lease : dedicatedLeases) {
            borrowed++;
            bytesBorrowed += lease.size();
            bytesAllocated += lease.size();
        }
        return new StagingStats(borrowed, idle, bytesBorrowed, bytesAllocated, buffers.getBorrowedCount() + dedicatedBorrows.sum(),
                waits.sum(), timeouts.sum(), failures.sum(), doubleReturns.sum(), overdueLeases.sum(), perClass);
    }

    StagingSettings settings() {
        return settings;
    }

    LimitLedger ledger() {
        return ledger;
    }

    /** Buffers that exist now, lent or idle. */
    int liveBufferCount() {
        return liveBuffers.size();
    }

    /** Buffers Commons Pool made and destroyed since start: its own counters. */
    long createdCount() {
        return buffers.getCreatedCount();
    }

    long destroyedCount() {
        return buffers.getDestroyedCount();
    }

    long returnedCount() {
        return buffers.getReturnedCount();
    }
}
