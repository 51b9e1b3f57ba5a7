package org.objrdma.transport.tcp.internal;

import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tck.GrantContractTest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;

/** The grant rules of the shared suite, run against two real TCP transports over IPv4 loopback. */
class TcpGrantContractTest extends GrantContractTest {

    @Override
    protected TransportPair openTransports() throws Exception {
        TcpTransport requester = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        TcpTransport responder = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        return new TransportPair(requester, responder, () -> {
            requester.close();
            responder.close();
        });
    }
}
