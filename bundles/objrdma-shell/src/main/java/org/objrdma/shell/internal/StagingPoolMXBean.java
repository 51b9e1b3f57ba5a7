package org.objrdma.shell.internal;

import java.util.Map;

/** {@code org.objrdma:type=pool,name=staging}: the staging pool's {@code stats()}, read-only. */
public interface StagingPoolMXBean {
    long getLent();

    long getFree();

    long getBytesLent();

    long getBytesHeld();

    long getMaxBufferSize();

    long getBorrows();

    long getWaits();

    long getTimeouts();

    long getFailures();

    long getDoubleReturns();

    long getOverdueLeases();

    /** Size class (bytes) → buffers lent out. */
    Map<Long, Long> getClassesLent();

    /** Size class (bytes) → buffers pooled and free. */
    Map<Long, Long> getClassesFree();
}
