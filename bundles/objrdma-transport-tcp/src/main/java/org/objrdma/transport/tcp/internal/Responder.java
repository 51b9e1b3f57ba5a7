package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;

/**
 * The responder side of the reader, what a NIC does for a peer's requests: checks rkey, access and bounds,
 * places WRITE and SEND payloads into registered memory or a posted receive, queues READ responses for the
 * writer, and acknowledges only once the bytes are in place. A refused request gets a negative acknowledgement,
 * the channel goes to ERROR and everything after it is dropped until the peer hangs up. Its own class because
 * the access checks and the inbound request in progress are one concept, the part the fuzzers aim at.
 */
final class Responder {

    /** Where a checked remote access lands: a region, through one of this channel's grants or (deprecated) not. */
    private record RemoteTarget(TcpRegion region, TcpGrant grant) {
        /** Where a checked remote address lies in the region: through the grant (whose base may be opaque). */
        long regionOffset(long remoteAddress) {
            return grant != null ? grant.regionOffset(remoteAddress) : remoteAddress - region.address();
        }
    }

    private final TcpConnection connection;
    private final TcpTransport transport;
    private final TcpChannel channel;
    /** Peer READs queued for the writer; bounded by max.queue.depth. */
    private final AtomicInteger queuedReads = new AtomicInteger();

    // reader-thread state: the peer request whose payload is arriving
    private long inboundSeq;
    private Opcode inboundOp;
    private long inboundLength;
    private long inboundRemaining;
    private MemoryCursor inboundTarget;
    private boolean inboundIntoRemoteRegion;
    private RecvOp inboundRecv;
    private boolean inboundHasImmediate;
    private int inboundImmediate;
    private boolean inboundActive;

    Responder(TcpConnection connection) {
        this.connection = connection;
        this.transport = connection.transport();
        this.channel = connection.channel();
    }

    /** Writer: a queued READ response went out (or was dropped). */
    void readServed() {
        queuedReads.decrementAndGet();
    }

    void onRequest(ByteBuffer inHeader) throws IOException, InterruptedException {
        if (inboundActive) {
            throw new ProtocolViolation("request " + Wire.seq(inHeader) + " before the payload of " + inboundSeq);
        }
        long seq = Wire.seq(inHeader);
        int code = Wire.op(inHeader);
        long remoteAddress = Wire.remoteAddress(inHeader);
        long length = Wire.length(inHeader);
        int rkey = Wire.rkey(inHeader);
        int immediate = Wire.immediate(inHeader);
        boolean hasImmediate = (Wire.flags(inHeader) & Wire.FLAG_IMMEDIATE) != 0;
        if (length < 0) {
            throw new ProtocolViolation("request " + seq + " with negative length");
        }
        Opcode op = switch (code) {
            case 0 -> Opcode.WRITE;
            case 1 -> Opcode.WRITE_WITH_IMM;
            case 2 -> Opcode.SEND;
            case 3 -> Opcode.SEND_WITH_IMM;
            case 4 -> Opcode.READ;
            default -> throw new ProtocolViolation("request " + seq + " with unknown opcode " + code);
        };
        switch (op) {
            case WRITE, WRITE_WITH_IMM -> {
                RemoteTarget target = checkRemote(remoteAddress, rkey, length, Access.REMOTE_WRITE);
                if (target == null && length > 0) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                    return;
                }
                RecvOp recv = null;
                if (op == Opcode.WRITE_WITH_IMM) {
                    recv = takeRecv();
                    if (recv == null) {
                        refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                        return;
                    }
                }
                MemoryCursor cursor = length == 0 ? null : MemoryCursor.range(target.region(), target.grant(),
                        target.regionOffset(remoteAddress), length);
                beginInbound(seq, op, length, cursor, true, recv, hasImmediate, immediate);
            }
            case SEND, SEND_WITH_IMM -> {
                RecvOp recv = takeRecv();
                if (recv == null) {
                    refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                    return;
                }
                if (recv.capacity < length) {
                    channel.completeRecv(connection, recv, new Completion(recv.request.wrId(), WcStatus.LOC_LEN_ERR,
                            WcOpcode.RECV, 0, false, 0, 0));
                    refuse(seq, WcStatus.REM_INV_REQ_ERR);
                    return;
                }
                MemoryCursor cursor = length == 0 ? null : MemoryCursor.over(recv.request.sgList());
                beginInbound(seq, op, length, cursor, false, recv, hasImmediate, immediate);
            }
            case READ -> {
                RemoteTarget source = checkRemote(remoteAddress, rkey, length, Access.REMOTE_READ);
                if (source == null && length > 0) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                    return;
                }
                if (queuedReads.incrementAndGet() > transport.settings().maxQueueDepth()) {
                    queuedReads.decrementAndGet();
                    refuse(seq, WcStatus.REM_INV_REQ_ERR);
                    return;
                }
                if (length == 0) {
                    queuedReads.decrementAndGet();
                    connection.backlog().owePeer(new Outbound.Ack(seq, WcStatus.SUCCESS, false), Wire.HEADER_BYTES);
                } else {
                    connection.backlog().owePeer(new Outbound.ReadResponse(seq, source.region(), source.grant(),
                            source.regionOffset(remoteAddress), length), Wire.HEADER_BYTES + length);
                }
            }
            default -> throw new ProtocolViolation("request " + seq + " with opcode " + op);
        }
    }

    /**
     * Where {@code [address, address + length)} with {@code rkey} may be accessed with {@code access}, or null.
     * An odd rkey names a grant and is looked up in this channel's grant table only, so another channel's
     * grant is as unknown here as a made-up key; an even one names a region registered with remote access
     * (the deprecated whole-region path). A zero-length request touches no memory and, as in verbs, is not
     * checked.
     */
    private RemoteTarget checkRemote(long address, int rkey, long length, Access access) {
        if (length == 0) {
            return null;
        }
        String refusal;
        if ((rkey & 1) != 0) {
            TcpGrant g = channel.grantByRkey(rkey);
            if (g != null && g.permits(address, length, access)) {
                return new RemoteTarget(g.tcpRegion(), g);
            }
            refusal = g == null ? "no such grant on this channel" : !g.isValid() ? "grant revoked"
                    : !g.access().contains(access) ? "access" : "outside the grant's slice";
        } else {
            TcpRegion r = transport.regionByRkey(rkey);
            if (r != null && r.isOpen() && r.allows(access) && r.contains(address, length)) {
                return new RemoteTarget(r, null);
            }
            refusal = r == null || !r.isOpen() ? "no such region" : !r.allows(access) ? "access" : "bounds";
        }
        transport.telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
        TcpTransport.LOG.debug("channel {}: refused {} of {} bytes at 0x{} rkey {} from {}: {}", channel.id(),
                access, length, Long.toHexString(address), Integer.toUnsignedString(rkey, 16), connection.peer(),
                refusal);
        return null;
    }

    private RecvOp takeRecv() throws InterruptedException {
        Keepalive keepalive = connection.keepalive();
        keepalive.beginLocalWait();
        try {
            return channel.takeRecv(connection, transport.settings().rnrWait());
        } finally {
            keepalive.endLocalWait(); // the wait was ours, not the peer's silence
        }
    }

    private void beginInbound(long seq, Opcode op, long length, MemoryCursor target, boolean remoteRegion,
                              RecvOp recv, boolean hasImmediate, int immediate) throws ClosedChannelException {
        inboundSeq = seq;
        inboundOp = op;
        inboundLength = length;
        inboundRemaining = length;
        inboundTarget = target;
        inboundIntoRemoteRegion = remoteRegion;
        inboundRecv = recv;
        inboundHasImmediate = hasImmediate;
        inboundImmediate = immediate;
        inboundActive = true;
        if (length == 0) {
            finishInbound();
        }
    }

    void onRequestData(long seq, long n) throws IOException {
        if (!inboundActive || seq != inboundSeq || n > inboundRemaining) {
            throw new ProtocolViolation("payload frame for request " + seq + " of " + n + " bytes unexpected");
        }
        if (!connection.reader().receiveInto(inboundTarget, n)) {
            inboundActive = false;
            if (inboundIntoRemoteRegion) {
                // the region was closed while the payload arrived: nothing is reported as placed
                transport.telemetry().increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
                refuse(seq, WcStatus.REM_ACCESS_ERR);
            } else {
                channel.completeRecv(connection, inboundRecv, new Completion(inboundRecv.request.wrId(),
                        WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, false, 0, 0));
                refuse(seq, WcStatus.REM_OP_ERR);
            }
            return;
        }
        inboundRemaining -= n;
        if (inboundRemaining == 0) {
            finishInbound();
        }
    }

    private void finishInbound() throws ClosedChannelException {
        inboundActive = false;
        // acknowledged only now: the requester reports success only for bytes that are in place. Queued before
        // the receive completes, so an owner that closes the channel on that completion still sends it (finish)
        connection.backlog().owePeer(new Outbound.Ack(inboundSeq, WcStatus.SUCCESS, false), Wire.HEADER_BYTES);
        if (inboundRecv != null) {
            WcOpcode opcode = inboundOp == Opcode.WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
            channel.completeRecv(connection, inboundRecv, new Completion(inboundRecv.request.wrId(), WcStatus.SUCCESS,
                    opcode, inboundLength, inboundHasImmediate, inboundHasImmediate ? inboundImmediate : 0, 0));
            inboundRecv = null;
        }
    }

    /** Refuses a peer request: negative acknowledgement, channel in ERROR, drop everything until the peer hangs up. */
    private void refuse(long seq, WcStatus status) throws ClosedChannelException {
        connection.recordCause(EndCause.REFUSED_PEER);
        connection.startRefusing();
        connection.backlog().owePeer(new Outbound.Ack(seq, status, true), Wire.HEADER_BYTES);
    }
}
