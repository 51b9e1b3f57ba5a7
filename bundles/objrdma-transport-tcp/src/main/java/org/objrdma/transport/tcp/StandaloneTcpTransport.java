package org.objrdma.transport.tcp;

import java.net.InetSocketAddress;
import org.objrdma.api.transport.Transport;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A TCP transport its creator owns: it runs until {@link #close()}, which closes its channels, regions and
 * memory agent in that order. Closing twice is harmless.
 */
@ProviderType
public interface StandaloneTcpTransport extends Transport, AutoCloseable {

    /** Where this transport's memory agent listens, as peers dial it. */
    InetSocketAddress agentAddress();

    @Override
    void close();
}
