package org.objrdma.transport.tcp;

import java.io.IOException;
import java.util.Map;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.transport.tcp.internal.TcpSettings;

/** Creates TCP transports for use outside OSGi. */
public final class TcpTransports {

    private TcpTransports() {
    }

    /**
     * Starts a transport configured with {@code properties}: the property names and defaults of the
     * {@code org.objrdma.transport.tcp} configuration (see the bundle README), e.g. {@code bind.address},
     * {@code port}, {@code frame.size}. Values may be of the property's type or strings.
     *
     * @throws IllegalArgumentException naming the first unknown or invalid property; nothing is started
     * @throws IOException              if the memory agent cannot listen
     */
    public static StandaloneTcpTransport start(Map<String, ?> properties) throws IOException {
        return TcpTransport.start(TcpSettings.fromProperties(properties), () -> Telemetry.NOOP);
    }

    /** Starts a transport with the defaults: memory agent on an ephemeral port of 127.0.0.1. */
    public static StandaloneTcpTransport startOnLoopback() throws IOException {
        return start(Map.of());
    }
}
