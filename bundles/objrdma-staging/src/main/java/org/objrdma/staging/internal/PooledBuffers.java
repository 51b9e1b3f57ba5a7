package org.objrdma.staging.internal;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered buffers themselves: a Commons Pool keyed by (transport binding, size class) that makes them
 * ({@link BufferFactory}: allocate, register), lends and takes them back, validates them (never lends a buffer
 * of a retired binding), and evicts and trims idle ones (idle timeout, idle bound per class). It does not
 * limit bytes — {@link LimitLedger} admits only what it can serve — so it never has to wait except for the
 * instant its evictor holds an idle buffer under test. Keeps the set of buffers alive now, lent or idle.
 */
final class PooledBuffers {
    private static final Logger LOG = LoggerFactory.getLogger(PooledBuffers.class);
    /** Retries when buffers fail validation (a region the transport closed) between creation and hand-out. */
    static final int SWAP_RETRIES = 3;

    /**
     * The Commons Pool never has to wait (the ledger admits only what it can serve), except for the instant
     * its evictor holds an idle buffer under test; this is the most such a borrow may add to its wait.
     */
    private static final Duration EVICTION_GRACE = Duration.ofMillis(50);
    /** Longest wait passed on to Commons Pool, which converts it to nanoseconds. */
    private static final Duration POOL_WAIT_CAP = Duration.ofMinutes(1);

    private final Set<StagingBuffer> live = ConcurrentHashMap.newKeySet();
    private final GenericKeyedObjectPool<TransportBinding.Key, StagingBuffer> pool;

    PooledBuffers(StagingSettings settings) {
        this.pool = new GenericKeyedObjectPool<>(new BufferFactory(live), config(settings));
        // the ledger already counts and the evictor needs no per-borrow timing: keep the hot path lean
        pool.setCollectDetailedStatistics(false);
        pool.setReuseCapacityOnReturn(false);
        pool.setSwallowedExceptionListener(e -> LOG.warn("Staging pool housekeeping failed", e));
    }

    private static GenericKeyedObjectPoolConfig<StagingBuffer> config(StagingSettings s) {
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

    /** What a borrow with {@code left} of its wait passes to {@link #take}: at least the eviction grace, at most a minute. */
    static Duration poolWait(Duration left) {
        return left.compareTo(EVICTION_GRACE) < 0 ? EVICTION_GRACE
                : left.compareTo(POOL_WAIT_CAP) > 0 ? POOL_WAIT_CAP : left;
    }

    /** Buffers alive now, lent or idle (a live view). */
    Set<StagingBuffer> live() {
        return live;
    }

    /** The most buffers of one class and binding. */
    void maxPerClass(int max) {
        pool.setMaxTotalPerKey(max);
    }

    /** Idle bound and idle timeout from {@code next}; the eviction period only if the timeout changed. */
    void idleRules(StagingSettings next, StagingSettings previous) {
        pool.setMaxIdlePerKey(next.idlePerClass());
        pool.setMinEvictableIdleDuration(next.idleTimeout());
        if (!next.idleTimeout().equals(previous.idleTimeout())) {
            pool.setTimeBetweenEvictionRuns(evictionPeriod(next.idleTimeout()));
        }
    }

    /**
     * A buffer of {@code classIndex} registered with {@code binding}, made now if none is idle, waiting at most
     * {@code maxWait}. {@code closed} says whether the staging pool is shutting down (a CLOSED refusal then).
     */
    StagingBuffer take(TransportBinding binding, int classIndex, Duration maxWait, BooleanSupplier closed)
            throws StagingException {
        TransportBinding.Key key = binding.key(classIndex);
        for (int attempt = 0; ; attempt++) {
            if (!binding.isLive()) {
                throw new StagingException(StagingStatus.NO_TRANSPORT, "the transport went away during the borrow");
            }
            try {
                return pool.borrowObject(key, maxWait);
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
                if (closed.getAsBoolean()) {
                    throw new StagingException(StagingStatus.CLOSED, "the staging pool is shutting down");
                }
                throw new StagingException(StagingStatus.REGISTRATION_FAILED, "buffer pool error: " + e.getMessage(), e);
            } catch (Exception e) {
                throw new StagingException(StagingStatus.REGISTRATION_FAILED,
                        "could not make a " + key + "-byte buffer: " + e, e);
            }
        }
    }

    /**
     * Takes a lent buffer back as idle; if its transport went away meanwhile, the binding's idle buffers go
     * (the retirement may have missed this one).
     */
    void giveBack(StagingBuffer buffer) {
        TransportBinding.Key key = buffer.key();
        pool.returnObject(key, buffer);
        if (!buffer.binding().isLive()) {
            pool.clear(key);
        }
    }

    /** Destroys a lent buffer that comes back after the pool closed (deregister, then free). */
    void destroy(StagingBuffer buffer) {
        try {
            pool.invalidateObject(buffer.key(), buffer);
        } catch (Exception e) {
            discard(buffer);
        }
    }

    /** Destroys a buffer outside the Commons Pool: the way out when taking it back failed. */
    void discard(StagingBuffer buffer) {
        live.remove(buffer);
        buffer.close();
    }

    /** Destroys the idle buffers of {@code binding} (its transport went away). */
    void clear(TransportBinding binding) {
        for (TransportBinding.Key key : binding.keys()) {
            pool.clear(key);
        }
    }

    /** Destroys every idle buffer. */
    void clearIdle() {
        pool.clear();
    }

    /** Closes the Commons Pool: idle buffers destroyed, no more borrows; lent ones come back through {@link #destroy}. */
    void close() {
        pool.close();
    }

    long borrowedCount() {
        return pool.getBorrowedCount();
    }

    long createdCount() {
        return pool.getCreatedCount();
    }

    long destroyedCount() {
        return pool.getDestroyedCount();
    }

    long returnedCount() {
        return pool.getReturnedCount();
    }
}
