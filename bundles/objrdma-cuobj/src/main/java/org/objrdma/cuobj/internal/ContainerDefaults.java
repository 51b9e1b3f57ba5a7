package org.objrdma.cuobj.internal;

import java.util.function.Supplier;
import org.objrdma.api.transport.Transport;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

/**
 * What the C-style constructors ({@code new CuObjServer(ip, port, proto)}) take from the active component: its
 * bound transport and its shared agent key. The component registers a {@link Source} while it is active; a server
 * finds it through this bundle's service registry, the transport on every call (so it follows a swap and is gone
 * with the component), the key when its session starts. Outside an OSGi framework there is no source: such a server
 * has no transport ({@code -ENODEV}) and, without a key in its tunables, runs in per-principal mode.
 */
public final class ContainerDefaults {

    /** The component's defaults, registered as a service of this bundle while the component is active. */
    public interface Source {
        /** The transport bound now, or null. */
        Transport transport();

        /** A copy of the shared agent key, or null (per-principal mode). */
        byte[] agentKey();
    }

    private ContainerDefaults() {
    }

    /** The component's transport, looked up on every call; null outside a framework or without the component. */
    public static Supplier<Transport> transport() {
        return () -> {
            Source s = source();
            return s == null ? null : s.transport();
        };
    }

    /** The component's shared agent key, or null. */
    public static byte[] agentKey() {
        Source s = source();
        return s == null ? null : s.agentKey();
    }

    private static Source source() {
        Bundle bundle = FrameworkUtil.getBundle(ContainerDefaults.class);
        BundleContext context = bundle == null ? null : bundle.getBundleContext();
        if (context == null) {
            return null;
        }
        try {
            ServiceReference<Source> ref = context.getServiceReference(Source.class);
            if (ref == null) {
                return null;
            }
            Source s = context.getService(ref);
            context.ungetService(ref); // the component's own object: nothing is held for us
            return s;
        } catch (IllegalStateException bundleStopping) {
            return null;
        }
    }
}
