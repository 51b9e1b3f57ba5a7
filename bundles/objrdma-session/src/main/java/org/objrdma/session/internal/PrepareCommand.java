package org.objrdma.session.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.transport.common.Closer;
import org.objrdma.wire.TokenResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rc_prepare}: checks the request, then acquires — limit charge, session id, staging lease(s), channel, a
 * PUT's staging grant — into an {@link AcquiredScope} that gives everything back in reverse order on any refusal,
 * and publishes the session. A refusal changes nothing.
 */
final class PrepareCommand {
    private static final Logger LOG = LoggerFactory.getLogger(PrepareCommand.class);

    /** Largest session: what one verbs scatter-gather entry can carry. */
    static final long MAX_SIZE = 0x7fff_ffffL;
    /** Longest target ({@code rc_session_info_resp.target} holds 2048 bytes with the terminator). */
    static final int MAX_TARGET_CHARS = 2047;
    private static final long MAX_24_BITS = 0xFF_FFFFL;
    /** The rkey of a GET's staging region in PREPARE's answer: a GET client is granted nothing on the server. */
    static final int NO_REMOTE_KEY = 0;

    /** A staging limit's property name in the pool's refusal message. */
    private static final Pattern STAGING_LIMIT = Pattern.compile("max(\\.[a-z]+)+");

    private final SessionSettings settings;
    private final CoreBindings bindings;
    private final SessionTable table;
    private final LimitAccounting accounting;
    private final DeadlineSlots deadlineSlots;
    private final AtomicLong workRequestIds;
    private final AtomicLong epochs = new AtomicLong();
    private final ChannelOptions channelOptions;

    PrepareCommand(SessionSettings settings, CoreBindings bindings, SessionTable table, LimitAccounting accounting,
                   DeadlineSlots deadlineSlots, AtomicLong workRequestIds) {
        this.settings = settings;
        this.bindings = bindings;
        this.table = table;
        this.accounting = accounting;
        this.deadlineSlots = deadlineSlots;
        this.workRequestIds = workRequestIds;
        // one request in flight per direction; connecting may use the whole exec budget
        // a dial of the client endpoint is cut off at the failed-dial delay, so no failure can outlast the pad
        this.channelOptions = new ChannelOptions(4, 4, 1,
                settings.dialPacing().dialTimeout(Duration.ofMillis(settings.execTimeoutMs())));
    }

    /** Runs PREPARE; a refusal says which limit refused when one did (the gateway's 429 names it). */
    PrepareResult run(PrepareRequest request) {
        if (request == null) {
            return refused(RcStatus.ARG);
        }
        if (bindings.closing()) {
            return refused(RcStatus.SHUTDOWN);
        }
        Transport t = bindings.transport();
        StagingPool pool = bindings.stagingPool();
        String argError = argumentError(request, t, settings.controlPlaneOnly());
        if (argError != null) {
            LOG.debug("PREPARE refused (ARG): {}", argError);
            return refused(RcStatus.ARG);
        }
        if (request.clientEndpoint() != null) {
            // the endpoint is client input: without this check a PREPARE could make the server dial its own host
            TokenResult<EndpointInfo> allowed = settings.addressPolicy().check(request.clientEndpoint());
            if (!allowed.isOk()) {
                LOG.debug("PREPARE refused (ARG): client endpoint {}", allowed.detail());
                return refused(RcStatus.ARG);
            }
        }
        PrincipalId principal = request.principal();
        int size = (int) request.size();
        // above the pool's largest buffer: a GET moves in chunks through two pool buffers (the server writes into
        // the client's memory, so chunking is invisible to it); a PUT needs one window of its size, a dedicated lease
        int chunk = request.op() == Op.GET && pool != null && size > pool.maxBufferSize()
                ? (int) pool.maxBufferSize() : 0;
        boolean dedicated = request.op() == Op.PUT && pool != null && size > pool.maxBufferSize();
        String refusedBy = accounting.take(principal);
        if (refusedBy != null) {
            LOG.info("PREPARE refused (LIMIT): {} reached for {}", refusedBy, principal);
            return PrepareResult.refused(RcStatus.LIMIT, "PREPARE", "org.objrdma.session " + refusedBy + " reached");
        }
        try (AcquiredScope scope = new AcquiredScope("PREPARE")) {
            scope.add(principal, () -> accounting.release(principal));
            if (request.target().length() > MAX_TARGET_CHARS) {
                return refused(RcStatus.TRUNC);
            }
            SessionId id = table.newId(bindings.fleet());
            if (id == null) {
                return refused(RcStatus.INTERNAL);
            }
            if (t == null || pool == null) {
                LOG.warn("PREPARE refused (INTERNAL): no {} bound", t == null ? "transport" : "staging pool");
                return refused(RcStatus.INTERNAL);
            }
            if (!t.isAvailable() || !selects(t)) {
                LOG.warn("PREPARE refused (INTERNAL): transport {} {}", t.name(), t.isAvailable()
                        ? "does not match dev.name '" + settings.devName() + "'"
                        : "is unavailable: " + t.unavailabilityCause().orElse("no cause given"));
                return refused(RcStatus.INTERNAL);
            }
            StagingLease lease;
            StagingLease secondLease = null;
            try {
                // on t itself: the pool may prefer another transport at this moment, the lease must match the channel
                if (dedicated) {
                    lease = borrowed(scope, pool.borrowDedicated(size, principal, id.hex(), t));
                } else if (chunk != 0) {
                    lease = borrowed(scope, pool.borrow(chunk, principal, id.hex(), Duration.ZERO, t));
                    secondLease = borrowed(scope, pool.borrow(chunk, principal, id.hex(), Duration.ZERO, t));
                } else {
                    lease = borrowed(scope, pool.borrow(size, principal, id.hex(), Duration.ZERO, t));
                }
            } catch (StagingException e) {
                RcStatus status = borrowRefusal(e, request.op(), size, dedicated || chunk != 0);
                return PrepareResult.refused(status, "PREPARE", status == RcStatus.LIMIT
                        ? stagingLimitReason(e, chunk != 0 ? 2L * chunk : size) : "");
            }
            long stagingOffset = stagingOffset(lease, chunk != 0 ? chunk : size);
            long secondOffset = secondLease == null ? 0 : stagingOffset(secondLease, chunk);
            if (stagingOffset < 0 || secondOffset < 0 || !lease.region().transportName().equals(t.name())
                    || (secondLease != null && !secondLease.region().transportName().equals(t.name()))) {
                LOG.error("PREPARE refused (INTERNAL): staging lease of {} bytes is not a registration of"
                        + " transport {} covering its segment (region of {})", size, t.name(),
                        lease.region().transportName());
                return refused(RcStatus.INTERNAL);
            }
            Channel channel;
            try {
                Channel opened = t.openChannel(channelOptions);
                channel = scope.add(opened, opened::close);
            } catch (TransportException e) {
                RcStatus status = e.error() == TransportError.RESOURCE_EXHAUSTED ? RcStatus.LIMIT : RcStatus.INTERNAL;
                LOG.warn("PREPARE refused ({}): transport {} could not open a channel: {}", status, t.name(),
                        e.getMessage());
                return PrepareResult.refused(status, "PREPARE", status == RcStatus.LIMIT
                        ? "transport " + t.name() + " has no room for another channel" : "");
            }
            PutStaging stagingAccess = null;
            RemoteRegion stagingRegion;
            if (request.op() == Op.PUT) {
                // the client's WRITE_WITH_IMM may reach exactly this session's slice, through this session's
                // channel only, until teardown revokes it (before the lease goes back to the pool); on verbs the
                // channel connects now so that the rkey answered is a window bound to it (PutStaging)
                try {
                    PutStaging opened = PutStaging.open(t, channel, lease.region(), stagingOffset, size,
                            request.clientEndpoint(), request.clientPsn(), workRequestIds.incrementAndGet(),
                            Duration.ofMillis(settings.prepTimeoutMs() + settings.execTimeoutMs()));
                    // teardown's order even here: the channel (idempotent close) before the grant it carried
                    stagingAccess = scope.add(opened, () -> Closer.closeAll(channel, opened.access()));
                } catch (TransportException e) {
                    RcStatus status = e.error() == TransportError.RESOURCE_EXHAUSTED ? RcStatus.LIMIT : RcStatus.INTERNAL;
                    LOG.warn("PREPARE refused ({}): transport {} could not grant the staging slice: {}", status,
                            t.name(), e.getMessage());
                    return PrepareResult.refused(status, "PREPARE", status == RcStatus.LIMIT
                            ? "transport " + t.name() + " has no room for another staging grant" : "");
                }
                stagingRegion = stagingAccess.access().remote();
            } else {
                // a GET client reaches nothing on the server: the server writes into the client's memory, so the
                // answer names no server address either (address 0, rkey 0)
                stagingRegion = new RemoteRegion(0, chunk != 0 ? chunk : size, NO_REMOTE_KEY);
            }
            long now = table.millis();
            Session s = new Session(id, SessionPlan.of(epochs.incrementAndGet(), principal, request.op(),
                    request.target(), request.offset(), size, request.cookie(), request.clientPsn(),
                    request.clientEndpoint(), request.clientRegion(), now, t, pool, lease, stagingOffset, secondLease,
                    secondOffset, chunk, channel, stagingAccess), deadlineSlots);
            synchronized (s) {
                s.admit(now + settings.prepTimeoutMs());
            }
            scope.add(s, () -> {
                synchronized (s) {
                    s.releaseSlot();
                }
            });
            PrepareResponse response = new PrepareResponse(id, channel.localEndpoint(), stagingRegion);
            if (!table.publish(s)) {
                LOG.error("PREPARE refused (INTERNAL): random session id collided with a live session");
                return refused(RcStatus.INTERNAL);
            }
            scope.keep(); // the session holds it all now; its teardown gives it back
            bindings.telemetry().increment(Counter.SESSIONS_PREPARED);
            return PrepareResult.ok(response);
        }
    }

    private static PrepareResult refused(RcStatus status) {
        return PrepareResult.refused(status, "PREPARE", "");
    }

    /**
     * Which staging limit refused, by its property name only: the pool's own message also names the principal (a
     * digest of the client's credentials), which a client-facing reason must not carry.
     */
    static String stagingLimitReason(StagingException e, long bytes) {
        Matcher limit = STAGING_LIMIT.matcher(String.valueOf(e.getMessage()));
        return "org.objrdma.staging " + (limit.find() ? limit.group() : "limit") + " has no room for " + bytes
                + " staging bytes";
    }

    private static StagingLease borrowed(AcquiredScope scope, StagingLease lease) {
        return scope.add(lease, lease::release);
    }

    private static RcStatus borrowRefusal(StagingException e, Op op, int size, boolean large) {
        RcStatus status = switch (e.status()) {
            case LIMIT -> RcStatus.LIMIT;
            case INVALID_SIZE -> RcStatus.ARG;
            // the transport went away from the pool an instant before this core heard of it: a wire failure
            case NO_TRANSPORT -> RcStatus.WIRE;
            default -> RcStatus.INTERNAL;
        };
        if (status == RcStatus.LIMIT && large) {
            // a large session's refusal names the staging limit in the log: the answer cannot carry it
            LOG.info("PREPARE refused (LIMIT) for a {}-byte {}: {}", size, op, e.getMessage());
        } else {
            LOG.debug("PREPARE refused ({}): staging borrow failed: {}", status, e.getMessage());
        }
        return status;
    }

    /** Why the request is malformed, or null. Touches nothing. */
    private static String argumentError(PrepareRequest r, Transport t, boolean controlPlaneOnly) {
        if (r.size() < 1 || r.size() > MAX_SIZE) {
            return "size " + r.size() + " outside 1.." + MAX_SIZE;
        }
        if (r.offset() < 0 || r.offset() > Long.MAX_VALUE - r.size()) {
            return "offset " + r.offset() + " negative or offset + size overflows";
        }
        if (r.target().isEmpty()) {
            return "empty target";
        }
        if (r.clientPsn() == 0 || (r.clientPsn() & ~MAX_24_BITS) != 0) {
            return "client PSN must be a non-zero 24-bit value";
        }
        if (r.clientEndpoint() == null && !controlPlaneOnly) {
            // no endpoint, no bytes: READY could only claim a success it never moved
            return "no client endpoint (sessions without one exist only with control.plane.only=true)";
        }
        if (r.clientEndpoint() != null && t != null && !r.clientEndpoint().kind().equals(t.endpointKind())) {
            return "client endpoint is " + r.clientEndpoint().kind() + " but the transport takes " + t.endpointKind();
        }
        if (r.clientRegion() != null && r.clientRegion().length() < r.size()) {
            return "client region of " + r.clientRegion().length() + " bytes is shorter than size " + r.size();
        }
        return null;
    }

    private boolean selects(Transport t) {
        return settings.devName().isEmpty() || t.name().equals("verbs:" + settings.devName());
    }

    /** Offset of the lease's bytes in its region, or -1 if the region does not cover them. */
    private static long stagingOffset(StagingLease lease, long size) {
        MemoryRegion region = lease.region();
        long offset = lease.segment().address() - region.segment().address();
        if (offset < 0 || offset > region.length() - size) {
            return -1;
        }
        return offset;
    }
}
