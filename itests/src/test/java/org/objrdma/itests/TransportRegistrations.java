package org.objrdma.itests;

import java.util.Hashtable;
import org.objrdma.api.transport.Transport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;

/**
 * Registers a test's transport in the container. Its own class, not a method of {@link ObjRdmaTestSupport}:
 * every Pax Exam probe loads that base class, and a stock Karaf ({@code StockKarafIT}) has no objrdma API
 * bundle when its probe starts, so the base must not name objrdma types.
 */
final class TransportRegistrations {
    private TransportRegistrations() {
    }

    /** Registers {@code t} with its name, level and {@code ranking}, as a transport bundle does. */
    static ServiceRegistration<Transport> register(BundleContext context, Transport t, int ranking) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(Transport.PROPERTY_NAME, t.name());
        props.put(Transport.PROPERTY_LEVEL, t.level().name());
        props.put(Constants.SERVICE_RANKING, ranking);
        return context.registerService(Transport.class, t, props);
    }
}
