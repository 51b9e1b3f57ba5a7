package org.objrdma.session.internal;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.RemoteSlice;

/**
 * A PUT session's staging access, opened at PREPARE: the client may WRITE_WITH_IMM into exactly the session's
 * staging slice, and (wherever the transport allows) through the session's own channel only.
 *
 * <p>A transport that grants on a channel still in INIT (TCP) gets a grant at once. Verbs grants only on a
 * connected queue pair (a type-2 memory window is bound by a work request, which needs RTS), while PREPARE must
 * answer the rkey before the client connects. When the PREPARE endpoint names the client's queue pair (objrdma's
 * client puts its QPN in the PREPARE token), the server therefore connects its queue pair to it <em>at
 * PREPARE</em> — RTR and RTS need only the peer's QPN, PSN and address, not the peer's readiness — after posting
 * the session's receive, and binds the window then: the rkey PREPARE answers is a window bound to this queue
 * pair, which the device refuses on every other one. {@link #armedReceive()} is that receive, which READY then
 * awaits instead of posting its own and connecting. Without a QPN at PREPARE (a hipObject-style client that names
 * it only at READY) or on a device without type-2 windows, the access is a registration of exactly the slice
 * ({@link RemoteSlice}'s fallback): reachable by any queue pair of the protection domain that knows the rkey,
 * until teardown.
 *
 * @param access       the client's access to the slice; closed by the session's teardown
 * @param armedReceive the receive posted at PREPARE on the channel connected then, or null (READY posts and connects)
 * @param armedWrId    that receive's work request id (0 without one)
 */
record PutStaging(RemoteSlice access, CompletableFuture<BatchResult> armedReceive, long armedWrId) {

    private static final Set<Access> CLIENT_WRITES = EnumSet.of(Access.REMOTE_WRITE);

    /** True if READY must not connect again: the channel was connected at PREPARE. */
    boolean connectedAtPrepare() {
        return armedReceive != null;
    }

    /**
     * Opens the access; on a transport that grants only once connected, and a client endpoint naming its queue
     * pair, connects {@code channel} first (see the class comment). On failure the caller closes the channel,
     * which also ends a receive posted here.
     *
     * @param client         the PREPARE endpoint (may name the queue number 0: not known yet), or null
     * @param clientPsn      the client's PSN from PREPARE
     * @param wrId           the id of the receive posted if the channel is connected here
     * @param receiveTimeout how long that receive may wait (the prep and exec timeouts: READY comes in between)
     */
    static PutStaging open(Transport transport, Channel channel, MemoryRegion region, long offset, int size,
                           EndpointInfo client, int clientPsn, long wrId, Duration receiveTimeout)
            throws TransportException {
        try {
            // opaque where the transport can (TCP): the PREPARE answer shows the client no server address
            return new PutStaging(RemoteSlice.grantOpaque(channel, region, offset, size, CLIENT_WRITES), null, 0);
        } catch (TransportException e) {
            boolean grantsOnceConnected = e.error() == TransportError.WRONG_STATE
                    && channel.state() == ChannelState.INIT;
            if (!grantsOnceConnected || client == null || client.queueNumber() == 0) {
                // the slice registration (or RemoteSlice's refusal of what cannot fall back)
                return new PutStaging(RemoteSlice.open(transport, channel, region, offset, size, CLIENT_WRITES),
                        null, 0);
            }
        }
        // the receive first: a write may arrive as soon as the queue pair is in RTR
        CompletableFuture<BatchResult> receive = channel.submit(
                List.of(WorkRequest.recv(wrId, new ScatterGatherEntry(region, offset, size))), receiveTimeout);
        if (receive.isCompletedExceptionally()) {
            throw refusal(receive);
        }
        channel.connect(client.withQueue(client.queueNumber(), clientPsn));
        return new PutStaging(RemoteSlice.grant(channel, region, offset, size, CLIENT_WRITES), receive, wrId);
    }

    private static TransportException refusal(CompletableFuture<BatchResult> refused) {
        try {
            refused.join();
        } catch (java.util.concurrent.CompletionException ce) {
            if (ce.getCause() instanceof TransportException te) {
                return te;
            }
            return new TransportException(TransportError.IO, "the staging receive was refused: " + ce.getCause(), ce);
        }
        return new TransportException(TransportError.IO, "the staging receive was refused");
    }
}
