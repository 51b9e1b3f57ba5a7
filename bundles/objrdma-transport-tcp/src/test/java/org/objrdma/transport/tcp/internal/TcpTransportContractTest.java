package org.objrdma.transport.tcp.internal;

import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tck.TransportContractTest;

/** The shared transport contract, run against two real TCP transports talking over IPv4 loopback. */
class TcpTransportContractTest extends TransportContractTest {

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
