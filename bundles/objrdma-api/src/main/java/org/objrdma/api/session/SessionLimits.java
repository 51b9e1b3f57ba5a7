package org.objrdma.api.session;

import java.time.Duration;

/**
 * The limits a session manager runs with (the limit fields of {@code rc_device_opts}, plus the lease
 * deadline objrdma adds). Every limiting value is validated at activation; none is "0 means nothing allowed".
 *
 * @param maxSessions         live sessions in all
 * @param maxUserSessions     live sessions per principal
 * @param maxStagingBytes     the deprecated session key max.staging.bytes as configured; limits nothing (the staging
 *                            pool's max.total.bytes is the one staging-byte budget)
 * @param maxUserStagingBytes the deprecated session key max.user.staging.bytes as configured; limits nothing (the
 *                            staging pool's max.bytes.per.principal governs)
 * @param maxQps              queue pairs in all (one per session)
 * @param maxUserQps          queue pairs per principal
 * @param prepTimeout         PREPARE to READY
 * @param execTimeout         READY's data phase
 * @param leaseTimeout        longest a staging lease or put view may be held before it is revoked
 * @param maxReadySlots       concurrent READY data phases
 * @param maxStageSlots       concurrent GET staging reads
 */
public record SessionLimits(long maxSessions, long maxUserSessions, long maxStagingBytes, long maxUserStagingBytes,
                            long maxQps, long maxUserQps, Duration prepTimeout, Duration execTimeout,
                            Duration leaseTimeout, int maxReadySlots, int maxStageSlots) {
}
