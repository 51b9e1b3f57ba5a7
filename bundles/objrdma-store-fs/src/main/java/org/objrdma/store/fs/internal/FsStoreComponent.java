package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import org.objrdma.api.store.ObjectStore;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PID {@code org.objrdma.store.fs}: opens the file store on the configured root and registers it as an
 * {@link ObjectStore} service (property {@code objrdma.store=fs}). A configuration change closes the store
 * and opens it again. With no credentials configured it generates one, stores it back into the PID and
 * logs it once.
 */
@Component(name = FsStoreComponent.PID, service = {}, immediate = true, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = FsStoreConfig.class)
public final class FsStoreComponent {
    static final String PID = "org.objrdma.store.fs";
    private static final Logger LOG = LoggerFactory.getLogger(FsStoreComponent.class);

    private final ConfigurationAdmin configurationAdmin;
    private final StoreEngine engine;
    private final ServiceRegistration<ObjectStore> registration;

    @Activate
    public FsStoreComponent(@Reference ConfigurationAdmin configurationAdmin, BundleContext context,
            Map<String, Object> properties) throws IOException {
        this.configurationAdmin = configurationAdmin;
        // throws IllegalArgumentException naming the bad property: DS records the failed activation
        FsStoreSettings settings = FsStoreSettings.from(properties, context.getProperty("karaf.data"));
        Credentials credentials = settings.credentials();
        if (credentials.isEmpty()) {
            credentials = Credentials.generate(new SecureRandom());
            storeGenerated(credentials);
        }
        engine = StoreEngine.filesystem(settings.root(), credentials.asMap(), settings.maxObjectSize(),
                settings.fsync(), org.objrdma.api.store.StoreLimits.MIN_PART_SIZE);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("objrdma.store", "fs");
        props.put("objrdma.store.root", settings.root().toString());
        props.put(Constants.SERVICE_DESCRIPTION, "objrdma embedded filesystem object store");
        registration = context.registerService(ObjectStore.class, engine, props);
        LOG.info("Filesystem object store active on {} (max object size {} bytes, fsync {}, {} user(s))",
                settings.root(), settings.maxObjectSize(), settings.fsync(), credentials.asMap().size());
        if (!settings.fsync()) {
            LOG.warn("fsync is off for the object store on {}: acknowledged writes can be lost on a power failure",
                    settings.root());
        }
    }

    private void storeGenerated(Credentials generated) {
        Map.Entry<String, String> user = generated.asMap().entrySet().iterator().next();
        LOG.info("No credentials configured for {}: generated access key id {} with secret key {} "
                + "-- stored as 'credentials' in {}; this is the only time the secret is logged",
                PID, user.getKey(), user.getValue(), PID);
        try {
            Configuration config = configurationAdmin.getConfiguration(PID, "?");
            Dictionary<String, Object> props = config.getProperties();
            if (props == null) {
                props = new Hashtable<>();
            }
            props.put(FsStoreSettings.CREDENTIALS, generated.toSpec());
            config.update(props);
        } catch (IOException e) {
            LOG.warn("Could not store the generated credential in {}: {}; it lasts until the next restart",
                    PID, e.toString());
        }
    }

    @Deactivate
    void deactivate() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters on bundle stop before DS deactivates
        }
        engine.close();
    }
}
