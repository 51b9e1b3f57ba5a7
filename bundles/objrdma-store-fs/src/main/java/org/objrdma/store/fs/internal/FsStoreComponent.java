package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.wire.UserCredentials;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PID {@code org.objrdma.store.fs}: opens the file store on the configured root and registers it as an
 * {@link ObjectStore} service (property {@code objrdma.store=fs}). With no credentials configured it
 * generates one and stores it back into the PID; the log names its access key id, never the secret.
 *
 * <p>A configuration change ({@code @Modified}) is checked whole first: a bad value is refused with one ERROR
 * line naming the property, and the open store keeps its settings. No property applies to an open store (the
 * engine takes root, limits, fsync and users when it opens), so a valid change logs one INFO line naming the
 * changed properties and restarts the store: the service is unregistered (its users let go of it), the
 * store closes, and it opens again with the new settings and registers anew. Should the new settings not
 * open (the root unusable), the store opens again with the previous ones and one ERROR line says why.
 */
@Component(name = FsStoreComponent.PID, service = {}, immediate = true, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = FsStoreConfig.class)
public final class FsStoreComponent {
    static final String PID = "org.objrdma.store.fs";
    private static final Logger LOG = LoggerFactory.getLogger(FsStoreComponent.class);

    private final ConfigurationAdmin configurationAdmin;
    private final BundleContext context;
    /** Guarded by this: the settings the open store runs with (with the generated credential, if any). */
    private FsStoreSettings settings;
    private StoreEngine engine;
    private ServiceRegistration<ObjectStore> registration;

    @Activate
    public FsStoreComponent(@Reference ConfigurationAdmin configurationAdmin, BundleContext context,
            Map<String, Object> properties) throws IOException {
        this.configurationAdmin = configurationAdmin;
        this.context = context;
        // throws IllegalArgumentException naming the bad property: DS records the failed activation
        FsStoreSettings configured = FsStoreSettings.from(properties, context.getProperty("karaf.data"));
        if (configured.credentials().isEmpty()) {
            UserCredentials generated = UserCredentials.generate(new SecureRandom());
            configured = new FsStoreSettings(configured.root(), configured.maxObjectSize(), configured.fsync(), generated);
            storeGenerated(generated);
        }
        synchronized (this) {
            open(configured);
        }
    }

    @Modified
    void modified(Map<String, Object> properties) {
        FsStoreSettings next;
        try {
            next = FsStoreSettings.from(properties, context.getProperty("karaf.data"));
        } catch (IllegalArgumentException e) {
            LOG.error("Configuration of {} refused, the store keeps its previous settings: {}", PID, e.getMessage());
            return;
        }
        synchronized (this) {
            FsStoreSettings previous = settings;
            if (next.credentials().isEmpty()) {
                // every credential removed: as at activation, one is generated (the old ones must stop working)
                UserCredentials generated = UserCredentials.generate(new SecureRandom());
                next = new FsStoreSettings(next.root(), next.maxObjectSize(), next.fsync(), generated);
                storeGenerated(generated);
            }
            String changed = changes(previous, next);
            if (changed.isEmpty()) {
                return; // e.g. the generated credential written back into the PID
            }
            LOG.info("{}: {} changed, restarting the store (an open store takes no change)", PID, changed);
            close();
            try {
                open(next);
            } catch (IOException | RuntimeException e) {
                LOG.error("{}: the store did not open with the new settings ({}), opening it again with the previous ones",
                        PID, e.toString());
                try {
                    open(previous);
                } catch (IOException again) {
                    throw new java.io.UncheckedIOException(again);
                }
            }
        }
    }

    /** The names of the properties whose values differ; empty when none does. */
    static String changes(FsStoreSettings a, FsStoreSettings b) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (!a.root().equals(b.root())) {
            out.add(FsStoreSettings.ROOT);
        }
        if (a.maxObjectSize() != b.maxObjectSize()) {
            out.add(FsStoreSettings.MAX_OBJECT_SIZE);
        }
        if (a.fsync() != b.fsync()) {
            out.add(FsStoreSettings.FSYNC);
        }
        if (!a.credentials().toSpec().equals(b.credentials().toSpec())) {
            out.add(FsStoreSettings.CREDENTIALS);
        }
        return String.join(", ", out);
    }

    private void open(FsStoreSettings s) throws IOException {
        StoreEngine opened = StoreEngine.filesystem(s.root(), s.credentials().asMap(), s.maxObjectSize(), s.fsync(),
                org.objrdma.api.store.StoreLimits.MIN_PART_SIZE);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("objrdma.store", "fs");
        props.put("objrdma.store.root", s.root().toString());
        props.put(Constants.SERVICE_DESCRIPTION, "objrdma embedded filesystem object store");
        engine = opened;
        settings = s;
        registration = context.registerService(ObjectStore.class, opened, props);
        LOG.info("Filesystem object store active on {} (max object size {} bytes, fsync {}, {} user(s))",
                s.root(), s.maxObjectSize(), s.fsync(), s.credentials().asMap().size());
        if (!s.fsync()) {
            LOG.warn("fsync is off for the object store on {}: acknowledged writes can be lost on a power failure",
                    s.root());
        }
    }

    /** Unregisters, then closes: users let go of the service before the store under it closes. */
    private void close() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters on bundle stop before DS deactivates
        }
        engine.close();
    }

    private void storeGenerated(UserCredentials generated) {
        Map.Entry<String, String> user = generated.asMap().entrySet().iterator().next();
        // never the secret: logs are copied, shipped and read by people who hold no S3 credential
        LOG.info("No credentials configured for {}: generated access key id {}; its secret is stored as 'credentials' "
                + "in configuration {} (Karaf: etc/{}.cfg, or config:property-list --pid {})",
                PID, user.getKey(), PID, PID, PID);
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
    synchronized void deactivate() {
        close();
    }

    /** The store the service now serves, for the tests. */
    synchronized StoreEngine engine() {
        return engine;
    }

    synchronized FsStoreSettings settings() {
        return settings;
    }
}
