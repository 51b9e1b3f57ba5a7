package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import org.objrdma.api.transport.WcStatus;

/**
 * The requester side of the reader: the peer's answers to our own requests — READ response bytes into the
 * READ's destination, and acknowledgements that complete a request (a negative one puts the channel in ERROR
 * and ends the connection). Its own class because it is the other half of the protocol from the
 * {@link Responder}, sharing only the reader thread.
 */
final class Requester {
    private final TcpConnection connection;

    Requester(TcpConnection connection) {
        this.connection = connection;
    }

    void onResponseData(long seq, long n) throws IOException {
        TcpChannel channel = connection.channel();
        SendOp op = channel.inFlight(connection, seq);
        if (op == null || op.readTarget == null || n > op.readTarget.remaining()) {
            throw new ProtocolViolation("READ response frame for " + seq + " of " + n + " bytes unexpected");
        }
        if (!connection.reader().receiveInto(op.readTarget, n)) {
            // our own destination region was closed under the READ
            connection.recordCause(EndCause.LOCAL_ERROR);
            channel.finish(connection, op, WcStatus.LOC_PROT_ERR, EndCause.LOCAL_ERROR.vendorCode());
            connection.abort(EndCause.LOCAL_ERROR);
        }
    }

    void onAck(long seq, int statusCode) throws ProtocolViolation {
        TcpChannel channel = connection.channel();
        SendOp op = channel.inFlight(connection, seq);
        if (op == null) {
            throw new ProtocolViolation("acknowledgement for unknown request " + seq);
        }
        WcStatus status = WcStatus.fromCode(statusCode);
        if (status.isSuccess()) {
            if (op.readTarget != null && op.readTarget.remaining() != 0) {
                throw new ProtocolViolation("READ " + seq + " acknowledged with " + op.readTarget.remaining()
                        + " bytes missing");
            }
            channel.finish(connection, op, WcStatus.SUCCESS, 0);
        } else {
            connection.recordCause(EndCause.REFUSED_BY_PEER);
            channel.finish(connection, op, status, 0);
            connection.abort(EndCause.REFUSED_BY_PEER);
        }
    }
}
