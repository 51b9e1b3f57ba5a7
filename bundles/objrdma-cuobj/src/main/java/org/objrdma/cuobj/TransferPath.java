package org.objrdma.cuobj;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.cuobj.internal.AgentConnections;
import org.objrdma.cuobj.internal.AgentTarget;
import org.objrdma.cuobj.internal.FacadeChannels;
import org.objrdma.cuobj.internal.ServerSession;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.Errno;
import org.objrdma.wire.TokenResult;

/**
 * One {@code handleGetObject} / {@code handlePutObject} from the checks to the completion: the checks in the
 * documented order ({@link CuObjServer} class comment), the flow ({@link TransferFlow}), the client agent's
 * connection, one WRITE (GET) or READ (PUT) work request, then the synchronous wait or the asynchronous event.
 * Package-private: it reads {@link RdmaBuffer}'s owner and scatter-gather list.
 */
final class TransferPath {
    private static final long WAIT_GRACE_MS = 1_000;

    private final CuObjServer owner;
    private final Supplier<Transport> transport;
    private final Supplier<ServerSession> session;
    private final TransferReport report;
    private final AtomicLong nextWrId = new AtomicLong();
    /** The transport the last transfer used: when it changes, connections on the old one are dropped. */
    private volatile Transport lastTransport;

    TransferPath(CuObjServer owner, Supplier<Transport> transport, Supplier<ServerSession> session,
                 TransferReport report) {
        this.owner = owner;
        this.transport = transport;
        this.session = session;
        this.report = report;
    }

    /** One transfer; {@code principal} null: the shared agent key (the cuObjServer-compatible overloads). */
    long transfer(CuObjPrincipal principal, boolean get, String key, RdmaBuffer buf, long remote, long size,
                  String descr, int channel, long localOffset, int[] status, Object asyncHandle) {
        long started = System.nanoTime();
        ServerSession s = session.get();
        Transport t = transport.get();
        if (s == null || t == null || !t.isAvailable()) {
            return report.fail(get, key, Errno.ENODEV, "the RDMA device is not available"
                    + (s == null ? " (no session)" : t == null ? " (no transport bound)" : " (" + t.unavailabilityCause()
                    .orElse("transport unavailable") + ")"));
        }
        if (principal == null && s.agentKey() == null) {
            return report.fail(get, key, Errno.EINVAL, "no shared agent key is configured (per-principal mode): use the"
                    + " CuObjPrincipal overloads");
        }
        if (buf == null || buf.owner != owner || !buf.isActive()) {
            return report.fail(get, key, Errno.EIO, "no registered buffer of this server (null, deregistered or foreign)");
        }
        if (remote == 0) {
            return report.fail(get, key, Errno.EIO, "remote_buf_start is 0");
        }
        if (size <= 0) {
            return report.fail(get, key, Errno.EIO, "size is " + size);
        }
        if (size > CuObj.MAX_TRANSFER_SIZE) {
            return report.fail(get, key, Errno.EIO, "size " + size + " exceeds 1 GiB (use transferLarge)");
        }
        FacadeChannels.Slot slot = s.channels().allocatedSlot(channel);
        if (slot == null) {
            return report.fail(get, key, Errno.EIO, "channel " + channel + " is not allocated");
        }
        TokenResult<CuObjDescriptor> parsed = CuObjDescriptor.parse(descr);
        if (!parsed.isOk()) {
            return report.fail(get, key, Errno.EIO, "descriptor refused: " + parsed.error() + ": " + parsed.detail());
        }
        CuObjDescriptor d = parsed.value();
        if (!d.covers(remote, size)) {
            return report.fail(get, key, Errno.EIO, String.format("remote range [0x%x, +%d) is outside the descriptor's"
                    + " [0x%x, +%d)", remote, size, d.remoteAddress(), d.regionSize()));
        }
        if (localOffset < 0 || localOffset > buf.size() || size > buf.size() - localOffset) {
            return report.fail(get, key, Errno.EIO, "size " + size + " + local_offset " + localOffset
                    + " exceeds the " + buf.size() + " registered bytes");
        }
        if (buf.entryCount() > s.maxSge()) {
            return report.fail(get, key, Errno.EIO, "the buffer has " + buf.entryCount() + " entries, max_sge is " + s.maxSge());
        }
        if (TransferFlow.of(t) == TransferFlow.UNSUPPORTED) {
            return report.fail(get, key, Errno.EAFNOSUPPORT, TransferFlow.declineReason(t));
        }
        if (!d.isTcpAddressable()) {
            return report.fail(get, key, Errno.EAFNOSUPPORT, "the descriptor names no TCP agent (has_gid "
                    + (d.hasGid() ? 1 : 0) + ", port " + d.lid() + ")");
        }
        TokenResult<InetAddress> allowed = s.addressPolicy().check(d.tcpAgentAddress().value().getAddress());
        if (!allowed.isOk()) {
            return report.fail(get, key, Errno.EACCES, "the descriptor's agent address is refused: " + allowed.detail());
        }
        long offset = localOffset;
        if (offset != 0 && buf.entryCount() > 1) {
            report.error("key " + key + ": local_offset " + offset + " on a buffer with " + buf.entryCount()
                        + " entries is treated as 0");
            offset = 0;
        }
        List<ScatterGatherEntry> sgl;
        try {
            sgl = buf.sgList(t, offset, size);
        } catch (TransportException e) {
            return report.fail(get, key, Errno.ENOMEM, "registering the buffer with " + t.name() + " failed: " + e.getMessage());
        } catch (IllegalStateException e) {
            return report.fail(get, key, Errno.EIO, "the buffer was deregistered");
        }

        if (lastTransport != t) {
            lastTransport = t;
            s.connections().retainOnly(t); // the bound transport was replaced: its connections are of no use
        }
        AgentConnections.Lease lease;
        long dialStarted = System.nanoTime();
        try {
            // the key is part of the cached connection's identity: a lane dialed for one principal is never
            // reused for another's descriptor
            byte[] agentKey = principal == null ? s.agentKey() : principal.agentKey();
            lease = s.connections().acquire(AgentTarget.of(t, d, agentKey), () -> d.tcpEndpoint(agentKey).value());
        } catch (TransportException e) {
            if (e.error() == TransportError.RESOURCE_EXHAUSTED) {
                return report.fail(get, key, Errno.ENOMEM, "no room for a connection to the client agent: " + e.getMessage());
            }
            // one answer for every failed dial, after one time: a closed port, a filtered one, a port that does not
            // speak the protocol and an agent that refuses the key look the same (no port scanning through
            // descriptors); the reason goes to the server's log only
            s.dialPacing().padFailure(dialStarted);
            setStatus(status, WcStatus.RETRY_EXC_ERR);
            return report.fail(get, key, Errno.EIO, DialPacing.UNREACHABLE + " (" + e.getMessage() + ")");
        }

        Channel c = lease.channel();
        WorkRequest wr = new WorkRequest(nextWrId.incrementAndGet(), get ? Opcode.WRITE : Opcode.READ, sgl, remote,
                d.rkey(), 0, true);
        CompletableFuture<BatchResult> future = c.submit(List.of(wr), s.transferTimeout());
        if (future.isCompletedExceptionally()) {
            lease.release();
            TransportException why = postRefusal(future);
            if (why.error() == TransportError.RESOURCE_EXHAUSTED) {
                return report.fail(get, key, Errno.ENOMEM, "the connection's queue is full: " + why.getMessage());
            }
            lease.drop();
            setStatus(status, WcStatus.WR_FLUSH_ERR);
            return report.fail(get, key, Errno.EIO, "the request could not be posted: " + why.getMessage());
        }

        if (asyncHandle != null) {
            int generation = slot.generation();
            slot.submitted();
            future.whenComplete((batch, error) -> {
                WcStatus st = outcome(batch, error);
                if (!st.isSuccess() && c.state() != ChannelState.CONNECTED) {
                    lease.drop();
                }
                lease.release();
                report.finished(get, key, size, st, started, channel, true);
                slot.completed(asyncHandle, st.code(), generation);
            });
            return 0;
        }

        WcStatus st;
        try {
            st = outcome(future.get(s.transferTimeout().toMillis() + WAIT_GRACE_MS, TimeUnit.MILLISECONDS), null);
        } catch (TimeoutException e) {
            st = WcStatus.RESP_TIMEOUT_ERR; // the transport itself stalled: drop the connection, which flushes
            lease.drop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            st = WcStatus.WR_FLUSH_ERR;
            lease.drop(); // closing the connection (at release) flushes the request: the memory is free again
        } catch (ExecutionException e) {
            st = WcStatus.GENERAL_ERR;
        }
        if (!st.isSuccess() && c.state() != ChannelState.CONNECTED) {
            lease.drop();
        }
        lease.release();
        setStatus(status, st);
        if (!st.isSuccess()) {
            return report.fail(get, key, Errno.EIO, "the transfer failed: " + st + " (" + st.description() + ")");
        }
        report.finished(get, key, size, st, started, channel, false);
        return size;
    }

    private static TransportException postRefusal(CompletableFuture<BatchResult> failed) {
        try {
            failed.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof TransportException te) {
                return te;
            }
            return new TransportException(TransportError.IO, String.valueOf(e.getCause()), e.getCause());
        }
        return new TransportException(TransportError.IO, "refused");
    }

    private static WcStatus outcome(BatchResult batch, Throwable error) {
        if (error != null || batch == null) {
            return WcStatus.GENERAL_ERR;
        }
        if (batch.timedOut()) {
            return WcStatus.RESP_TIMEOUT_ERR;
        }
        for (Completion c : batch.completions()) {
            if (!c.isSuccess()) {
                return c.status();
            }
        }
        return WcStatus.SUCCESS;
    }

    private static void setStatus(int[] status, WcStatus st) {
        if (status != null && status.length > 0) {
            status[0] = st.code();
        }
    }

    /**
     * {@link CuObjServer#transferLarge}: a synchronous GET ({@code op == CUOBJ_GET}) or PUT ({@code CUOBJ_PUT}) of any size, as
     * {@code handle*Object} calls of at most 1 GiB each (the NooBaa pattern: remote start and local offset advance
     * together). The buffer must have one entry (a registered buffer or a one-entry view) unless
     * {@code size <= 1 GiB}. Returns {@code size}, or the first negative errno (earlier chunks stay done);
     * {@code -EIO} also for another {@code op} or a multi-entry buffer.
     */
    long transferLarge(int op, String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                              int channel, long localOffset, int[] status) {
        if (op != CuObj.CUOBJ_GET && op != CuObj.CUOBJ_PUT) {
            return report.fail(op == CuObj.CUOBJ_GET, key, Errno.EIO, "transferLarge: op " + op + " is neither GET nor PUT");
        }
        boolean get = op == CuObj.CUOBJ_GET;
        if (size > CuObj.MAX_TRANSFER_SIZE && buf != null && buf.entryCount() != 1) {
            return report.fail(get, key, Errno.EIO, "transferLarge: a buffer with " + buf.entryCount()
                    + " entries cannot be addressed by offset");
        }
        if (size <= 0) {
            return transfer(null, get, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
        }
        long done = 0;
        while (done < size) {
            long chunk = Math.min(CuObj.MAX_TRANSFER_SIZE, size - done);
            long r = transfer(null, get, key, buf, remoteBufStart + done, chunk, rdmaDescr, channel, localOffset + done,
                    status, null);
            if (r < 0) {
                return r;
            }
            done += r;
        }
        return done;
    }

}
