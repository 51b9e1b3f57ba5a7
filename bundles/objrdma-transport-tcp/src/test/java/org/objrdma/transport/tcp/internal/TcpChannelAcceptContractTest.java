package org.objrdma.transport.tcp.internal;

import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tck.ChannelAcceptContractTest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;

/** The access-key and inbound-accept contract on two real TCP transports over loopback: the accepting half. */
class TcpChannelAcceptContractTest extends ChannelAcceptContractTest {

    @Override
    protected TransportPair openTransports() throws Exception {
        TcpTransport dialer = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        TcpTransport acceptor = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        return new TransportPair(dialer, acceptor, () -> {
            dialer.close();
            acceptor.close();
        });
    }
}
