package org.objrdma.transport.tcp.internal;

import java.io.IOException;

/** The peer broke the protocol; the connection is cut. */
final class ProtocolViolation extends IOException {
    private static final long serialVersionUID = 1L;

    ProtocolViolation(String message) {
        super(message);
    }
}
