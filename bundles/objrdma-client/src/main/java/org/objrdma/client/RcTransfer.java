package org.objrdma.client;

import java.time.Duration;
import java.util.List;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodecs;
import org.objrdma.wire.RemoteSlice;
import org.objrdma.wire.TokenResult;

/**
 * One hipobj-rc-v2 transfer on the client: its channel, cookie and PSN, and the data phase.
 *
 * <p>Steps (the HTTP requests are the caller's):
 * <ol>
 *   <li>PREPARE: send {@link #token()} (and, on TCP, {@link #channelKey()}: the token has no room for it) or
 *       hand {@link #prepareRequest} to a {@code SessionManager};</li>
 *   <li>{@link #start(PrepareResponse)} with the answer: connects to the server's endpoint (RC needs both sides
 *       connected; on TCP a server that dialed first is accepted) and, for PUT, posts the WRITE_WITH_IMM of the
 *       client bytes into the server's staging region with the cookie as immediate;</li>
 *   <li>READY: send {@link #readyRequest} (concurrently with the data phase: the server's READY waits for it);</li>
 *   <li>the future of step 2 completes: for GET once the server's WRITE_WITH_IMM arrived, checked to carry the
 *       cookie and exactly {@link #size()} bytes; for PUT once the write was acknowledged.</li>
 * </ol>
 * {@link #close()} closes the channel (idempotent); do it after the outcome, or to abandon the transfer.
 *
 * <p>A GET grants the server exactly {@code [offset, offset + size)} of the memory, writable only, on this
 * transfer's channel ({@link #clientRegion()} is that grant; on a transport that cannot grant before the channel
 * connects, a registration of the slice), and revokes it as soon as the outcome is known, or at {@link #close()}.
 * A PUT grants nothing: the client writes into the server's staging grant.
 */
public final class RcTransfer implements AutoCloseable {
    private static final long RECV_WR_ID = 1;
    private static final long WRITE_WR_ID = 2;

    private final Op op;
    private final ClientMemory memory;
    private final long offset;
    private final int size;
    private final int cookie;
    private final int psn;
    private final Channel channel;
    private final Duration timeout;
    private final CompletableFuture<BatchResult> getArrival;
    /** GET: the server's access to the target slice; null for PUT. */
    private final RemoteSlice target;

    private RcTransfer(Op op, ClientMemory memory, long offset, int size, int cookie, int psn, Channel channel,
                       Duration timeout, CompletableFuture<BatchResult> getArrival, RemoteSlice target) {
        this.op = op;
        this.memory = memory;
        this.offset = offset;
        this.size = size;
        this.cookie = cookie;
        this.psn = psn;
        this.channel = channel;
        this.timeout = timeout;
        this.getArrival = getArrival;
        this.target = target;
    }

    static RcTransfer start(Op op, ClientMemory memory, long offset, int size, int cookie, int drawnPsn,
                            Channel channel, Duration timeout) throws TransportException {
        RemoteSlice target = null;
        try {
            CompletableFuture<BatchResult> arrival = null;
            if (op == Op.GET) {
                target = RemoteSlice.open(memory.transport(), channel, memory.region(), offset, size,
                        EnumSet.of(Access.REMOTE_WRITE));
                // a zero-length receive takes the completion of the server's WRITE_WITH_IMM
                arrival = channel.submit(List.of(WorkRequest.recv(RECV_WR_ID)), timeout);
                if (arrival.isCompletedExceptionally()) {
                    arrival.join(); // throws the refusal
                }
            }
            int psn = channel.localEndpoint().initialPsn().orElse(drawnPsn);
            return new RcTransfer(op, memory, offset, size, cookie, psn, channel, timeout, arrival, target);
        } catch (TransportException e) {
            channel.close();
            if (target != null) {
                target.close();
            }
            throw e;
        } catch (RuntimeException e) {
            channel.close();
            if (target != null) {
                target.close();
            }
            if (e.getCause() instanceof TransportException te) {
                throw te;
            }
            throw e;
        }
    }

    public Op op() {
        return op;
    }

    /** The cookie: the immediate value of the data phase, never 0. */
    public int cookie() {
        return cookie;
    }

    /** The PSN for PREPARE: the queue pair's on verbs, a random 24-bit non-zero value on TCP. */
    public int psn() {
        return psn;
    }

    /** Bytes of the transfer. */
    public int size() {
        return size;
    }

    /** The client channel (queue pair). */
    public Channel channel() {
        return channel;
    }

    /** What the server connects to. */
    public EndpointInfo clientEndpoint() {
        return channel.localEndpoint();
    }

    /** The key the server must present to this channel (TCP), or null (verbs). */
    public byte[] channelKey() {
        return channel.localEndpoint().as(EndpointInfo.Tcp.class).map(EndpointInfo.Tcp::key).orElse(null);
    }

    /** GET: the grant of the client memory the server writes into (valid until the outcome); PUT: null. */
    public RemoteRegion clientRegion() {
        return target == null ? null : target.remote();
    }

    /** The 88-hex client token: RC for verbs, TCP (0x80) for the TCP transport; a GET's names its region. */
    public String token() {
        RemoteRegion region = clientRegion();
        TokenResult<RcToken> token = RcTokenCodecs.encode(channel.localEndpoint(), region);
        if (!token.isOk()) {
            throw new IllegalStateException("the transport's endpoints have no token form: " + token.detail());
        }
        return token.value().format();
    }

    /** The PREPARE of this transfer for {@code target} at {@code objectOffset}. */
    public PrepareRequest prepareRequest(PrincipalId principal, String target, long objectOffset) {
        return new PrepareRequest(principal, op, target, objectOffset, size, psn, cookie, clientEndpoint(),
                clientRegion());
    }

    /** The READY of this transfer: names the client channel (queue pair number on verbs, channel id on TCP). */
    public ReadyRequest readyRequest(PrincipalId principal, SessionId sessionId) {
        long qpn = channel.localEndpoint().queueNumber();
        return new ReadyRequest(principal, sessionId, cookie, qpn, null);
    }

    /**
     * Runs the client's data phase against the PREPARE answer; never completes exceptionally.
     * Connect failures, refused posts and completion errors become a failed {@link RcOutcome}.
     */
    public CompletableFuture<RcOutcome> start(PrepareResponse prepared) {
        Objects.requireNonNull(prepared, "prepared");
        try {
            if (channel.remoteEndpoint() == null) {
                channel.connect(prepared.serverEndpoint());
            }
        } catch (TransportException e) {
            return CompletableFuture.completedFuture(RcOutcome.failure(WcStatus.RETRY_EXC_ERR,
                    "connect to the server failed: " + e.getMessage()));
        }
        if (op == Op.GET) {
            return getArrival.handle((batch, error) -> revokeTarget(error != null
                    ? RcOutcome.failure(WcStatus.GENERAL_ERR, "the receive could not be posted: " + error.getMessage())
                    : checkGet(batch)));
        }
        RemoteRegion staging = prepared.stagingRegion();
        if (staging.length() < size) {
            return CompletableFuture.completedFuture(RcOutcome.failure(WcStatus.GENERAL_ERR,
                    "the server's staging region holds " + staging.length() + " bytes, the transfer " + size));
        }
        WorkRequest write = WorkRequest.writeWithImm(WRITE_WR_ID,
                new ScatterGatherEntry(memory.region(), offset, size), staging.address(), staging.rkey(), cookie);
        return channel.submit(List.of(write), timeout).handle((batch, error) -> {
            if (error != null) {
                return RcOutcome.failure(WcStatus.GENERAL_ERR, "the write could not be posted: " + error.getMessage());
            }
            Completion c = only(batch);
            if (c == null) {
                return timedOutOrOdd(batch);
            }
            return c.isSuccess() ? RcOutcome.success(size)
                    : RcOutcome.failure(c.status(), "the write failed: " + c.status().description());
        });
    }

    private RcOutcome checkGet(BatchResult batch) {
        Completion c = only(batch);
        if (c == null) {
            return timedOutOrOdd(batch);
        }
        if (!c.isSuccess()) {
            return RcOutcome.failure(c.status(), "the receive failed: " + c.status().description());
        }
        if (c.opcode() != WcOpcode.RECV_RDMA_WITH_IMM || !c.hasImmediate()) {
            return RcOutcome.failure(WcStatus.GENERAL_ERR, "the receive was completed by " + c.opcode()
                    + ", not by the server's WRITE_WITH_IMM");
        }
        if (c.immediate() != cookie) {
            return RcOutcome.failure(WcStatus.GENERAL_ERR,
                    String.format("immediate 0x%08x is not the cookie 0x%08x", c.immediate(), cookie));
        }
        // a GET larger than the server's staging buffer arrives in chunks: plain WRITEs, then the WRITE_WITH_IMM of
        // the last chunk, whose length is all the completion reports; the queue pair delivers writes in order, so
        // the immediate still means every byte before it landed (objrdma-s3 README, "larger than a staging buffer")
        if (c.byteLength() < 1 || c.byteLength() > size) {
            return RcOutcome.failure(WcStatus.GENERAL_ERR, "the server wrote " + c.byteLength() + " bytes, asked " + size);
        }
        return RcOutcome.success(size);
    }

    private static Completion only(BatchResult batch) {
        return batch != null && !batch.timedOut() && batch.completions().size() == 1 ? batch.completions().get(0) : null;
    }

    private RcOutcome timedOutOrOdd(BatchResult batch) {
        if (batch != null && batch.timedOut()) {
            return RcOutcome.failure(WcStatus.RESP_TIMEOUT_ERR, "nothing completed within " + timeout);
        }
        return RcOutcome.failure(WcStatus.GENERAL_ERR, "unexpected completions: " + batch);
    }

    /** The outcome is known: the server may no longer write into the slice. */
    private RcOutcome revokeTarget(RcOutcome outcome) {
        if (target != null) {
            target.close();
        }
        return outcome;
    }

    /** Closes the channel and revokes the GET grant; a pending receive or write completes flushed. Idempotent. */
    @Override
    public void close() {
        channel.close();
        if (target != null) {
            target.close();
        }
    }
}
