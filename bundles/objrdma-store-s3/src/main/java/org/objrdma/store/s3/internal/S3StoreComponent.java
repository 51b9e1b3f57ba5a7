package org.objrdma.store.s3.internal;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreException;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PID {@code org.objrdma.store.s3} (required): connects to the remote S3 service and registers the adapter
 * as an {@link ObjectStore} service with property {@code objrdma.store=s3}. A bad configuration or an
 * unreachable remote fails the activation (DS logs the reason) and registers nothing.
 *
 * <p>A configuration change ({@code @Modified}) is checked whole first: a bad value is refused with one ERROR
 * line naming the property, and the running adapter keeps its settings. The adapter's client is built from
 * the whole configuration, so no change applies to it live: a valid change logs one INFO line naming the
 * changed properties and restarts the adapter. The new one connects first; only when it has does its service
 * replace the old one (registered, then the old unregistered and closed), so an unreachable new endpoint is
 * refused with one ERROR line and the old adapter goes on serving.
 */
@Component(name = S3StoreComponent.PID, service = {}, immediate = true, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = S3StoreConfig.class)
public final class S3StoreComponent {
    static final String PID = "org.objrdma.store.s3";
    private static final Logger LOG = LoggerFactory.getLogger(S3StoreComponent.class);

    private final BundleContext context;
    /** Guarded by this. */
    private S3ObjectStore store;
    private ServiceRegistration<ObjectStore> registration;
    private Map<String, Object> configured;

    @Activate
    public S3StoreComponent(BundleContext context, Map<String, Object> properties) throws StoreException {
        this.context = context;
        S3StoreSettings settings = S3StoreSettings.from(properties);
        S3ObjectStore opened = connect(settings);
        synchronized (this) {
            serve(settings, opened);
            this.configured = Map.copyOf(properties);
        }
    }

    @Modified
    synchronized void modified(Map<String, Object> properties) {
        S3StoreSettings next;
        try {
            next = S3StoreSettings.from(properties);
        } catch (IllegalArgumentException e) {
            LOG.error("Configuration of {} refused, the S3 store adapter keeps its previous settings: {}", PID,
                    e.getMessage());
            return;
        }
        String changed = changedProperties(configured, properties);
        if (changed.isEmpty()) {
            return;
        }
        LOG.info("{}: {} changed, restarting the S3 store adapter (its client takes no change live)", PID, changed);
        S3ObjectStore opened;
        try {
            opened = connect(next);
        } catch (StoreException | RuntimeException e) {
            LOG.error("{}: the S3 store adapter did not connect with the new settings ({}), the previous one goes on "
                    + "serving", PID, e.getMessage());
            return;
        }
        S3ObjectStore previous = store;
        ServiceRegistration<ObjectStore> previousRegistration = registration;
        serve(next, opened);
        configured = Map.copyOf(properties);
        unregister(previousRegistration);
        previous.close();
    }

    /**
     * The configured properties whose values differ, comma-separated, without those Config Admin, DS and
     * Karaf add ({@code service.*}, {@code component.*}, {@code felix.*}); secrets are named, never shown.
     */
    static String changedProperties(Map<String, ?> before, Map<String, ?> after) {
        java.util.SortedSet<String> names = new java.util.TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        names.removeIf(n -> n.startsWith("service.") && !n.startsWith("service.access") && !n.startsWith("service.secret")
                || n.startsWith("component.") || n.startsWith("felix."));
        names.removeIf(n -> String.valueOf(before.get(n)).equals(String.valueOf(after.get(n))));
        return String.join(", ", names);
    }

    private static S3ObjectStore connect(S3StoreSettings settings) throws StoreException {
        // the SDK finds its HTTP client and interceptors through the thread's context class loader
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(S3StoreComponent.class.getClassLoader());
        try {
            return new S3ObjectStore(settings);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private void serve(S3StoreSettings s, S3ObjectStore opened) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("objrdma.store", "s3");
        props.put("objrdma.store.endpoint", String.join(",", s.endpoints().stream().map(Object::toString).toList()));
        props.put(Constants.SERVICE_DESCRIPTION, "objrdma S3 object store adapter");
        store = opened;
        registration = context.registerService(ObjectStore.class, opened, props);
        LOG.info("S3 object store adapter active on {} (region {}, {} style, pool {}, {} user(s))",
                s.endpoints(), s.region(), s.pathStyle() ? "path" : "virtual-host", s.maxConnections(), s.users().size());
    }

    private static void unregister(ServiceRegistration<ObjectStore> r) {
        try {
            r.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters on bundle stop before DS deactivates
        }
    }

    @Deactivate
    synchronized void deactivate() {
        unregister(registration);
        store.close();
    }

    /** The adapter the service now serves, for the tests. */
    synchronized S3ObjectStore store() {
        return store;
    }
}
