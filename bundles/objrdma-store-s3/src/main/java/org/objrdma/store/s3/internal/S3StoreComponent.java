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
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PID {@code org.objrdma.store.s3} (required): connects to the remote S3 service and registers the adapter
 * as an {@link ObjectStore} service with property {@code objrdma.store=s3}. A configuration change
 * deactivates and activates it again; a bad configuration or an unreachable remote fails the activation
 * (DS logs the reason) and registers nothing.
 */
@Component(name = S3StoreComponent.PID, service = {}, immediate = true, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = S3StoreConfig.class)
public final class S3StoreComponent {
    static final String PID = "org.objrdma.store.s3";
    private static final Logger LOG = LoggerFactory.getLogger(S3StoreComponent.class);

    private final S3ObjectStore store;
    private final ServiceRegistration<ObjectStore> registration;

    @Activate
    public S3StoreComponent(BundleContext context, Map<String, Object> properties) throws StoreException {
        S3StoreSettings settings = S3StoreSettings.from(properties);
        // the SDK finds its HTTP client and interceptors through the thread's context class loader
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(S3StoreComponent.class.getClassLoader());
        try {
            store = new S3ObjectStore(settings);
        } finally {
            thread.setContextClassLoader(previous);
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("objrdma.store", "s3");
        props.put("objrdma.store.endpoint", settings.endpoint().toString());
        props.put(Constants.SERVICE_DESCRIPTION, "objrdma S3 object store adapter");
        registration = context.registerService(ObjectStore.class, store, props);
        LOG.info("S3 object store adapter active on {} (region {}, {} style, pool {}, {} user(s))",
                settings.endpoint(), settings.region(), settings.pathStyle() ? "path" : "virtual-host",
                settings.maxConnections(), settings.users().size());
    }

    @Deactivate
    void deactivate() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters on bundle stop before DS deactivates
        }
        store.close();
    }
}
