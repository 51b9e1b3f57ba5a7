package org.objrdma.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * The embedded file store inside Karaf: with no configuration it generates a credential and stores it back
 * into its PID, registers an {@code ObjectStore} on {@code ${karaf.data}/objrdma/store} that serves real
 * files, and a bad value while it runs is refused naming the property, the store serving on.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StoreFsIT extends ObjRdmaTestSupport {
    private static final String PID = "org.objrdma.store.fs";

    @Inject
    ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() {
        return baseOptions();
    }

    private Dictionary<String, Object> configuration() throws Exception {
        org.osgi.service.cm.Configuration[] found = waitForService(ConfigurationAdmin.class, null)
                .listConfigurations("(service.pid=" + PID + ")");
        return found == null ? null : found[0].getProperties();
    }

    private String configuredCredentials() throws Exception {
        Dictionary<String, Object> props = configuration();
        Object v = props == null ? null : props.get("credentials");
        return v == null ? null : v.toString();
    }

    /** The registered store that knows {@code accessKey}, once the component has restarted with it. */
    private ObjectStore storeKnowing(String accessKey) throws Exception {
        AtomicReference<ObjectStore> found = new AtomicReference<>();
        await("an ObjectStore knowing " + accessKey, SERVICE_TIMEOUT, () -> {
            try {
                for (ServiceReference<ObjectStore> ref : bundleContext.getServiceReferences(ObjectStore.class,
                        "(objrdma.store=fs)")) {
                    ObjectStore s = bundleContext.getService(ref);
                    if (s != null && s.secretKey(accessKey).isPresent()) {
                        found.set(s);
                        return true;
                    }
                }
            } catch (Exception e) {
                return false;
            }
            return false;
        });
        return found.get();
    }

    @Test
    public void generatesAFirstCredentialStoresItAndServesObjectsFromFiles() throws Exception {
        AtomicReference<String> spec = new AtomicReference<>();
        await("a generated credential in " + PID, SERVICE_TIMEOUT, () -> {
            try {
                spec.set(configuredCredentials());
            } catch (Exception e) {
                return false;
            }
            return spec.get() != null && spec.get().matches("[A-Z2-7]{20}:[A-Za-z0-9+/]{40}");
        });
        String accessKey = spec.get().substring(0, spec.get().indexOf(':'));
        String secret = spec.get().substring(spec.get().indexOf(':') + 1);
        ObjectStore store = storeKnowing(accessKey);
        assertEquals(secret, store.secretKey(accessKey).orElseThrow());
        ServiceReference<ObjectStore> ref = bundleContext.getServiceReferences(ObjectStore.class, "(objrdma.store=fs)")
                .iterator().next();
        String root = ref.getProperty("objrdma.store.root").toString();
        assertEquals(new File(System.getProperty("karaf.data"), "objrdma/store").getCanonicalPath(),
                new File(root).getCanonicalPath());

        store.createBucket(accessKey, "it-bucket");
        assertTrue(store.isAuthorized(accessKey, StoreAction.PUT_OBJECT, "it-bucket", "k"));
        assertTrue(!store.isAuthorized("SOMEONEELSE", StoreAction.GET_OBJECT, "it-bucket", "k"));
        byte[] data = new byte[3 * 1024 * 1024 + 5];
        new Random(3).nextBytes(data);
        PutResult put = store.put("it-bucket", "dir/obj", new ByteArrayInputStream(data), data.length,
                PutOptions.DEFAULT.withChecksums(Set.of(ChecksumAlgorithm.CRC64NVME)));
        assertEquals(32, put.etag().length());
        try (Arena arena = Arena.ofConfined(); ObjectContent c = store.open("it-bucket", "dir/obj", Conditions.NONE)) {
            MemorySegment staging = arena.allocate(data.length, 4096);
            assertEquals(data.length, c.read(0, staging));
            assertArrayEquals(data, staging.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(put.checksums(), c.info().checksums());
        }
        assertEquals(List.of("dir/"), store.list("it-bucket", new ListRequest("", "/", 1000, null, null)).commonPrefixes());
        File objects = new File(root, "buckets/it-bucket/objects");
        assertEquals(1, objects.list().length);
        store.delete("it-bucket", "dir/obj");
        store.deleteBucket("it-bucket");
        assertTrue(!new File(root, "buckets/it-bucket").exists());
    }

    /**
     * A bad value while the store runs is refused by its {@code @Modified} with one ERROR line naming the
     * property, and the store keeps serving with its settings: the same service, no failed activation.
     */
    @Test
    public void aBadConfigurationIsRefusedNamingThePropertyAndTheStoreKeepsServing() throws Exception {
        await("the store configured", SERVICE_TIMEOUT, () -> {
            try {
                return configuredCredentials() != null;
            } catch (Exception e) {
                return false;
            }
        });
        String spec = configuredCredentials();
        String accessKey = spec.substring(0, spec.indexOf(':'));
        ObjectStore before = storeKnowing(accessKey);
        Object serviceId = bundleContext.getServiceReferences(ObjectStore.class, "(objrdma.store=fs)").iterator().next()
                .getProperty(org.osgi.framework.Constants.SERVICE_ID);
        Hashtable<String, Object> good = new Hashtable<>();
        good.put("credentials", spec);
        try {
            Hashtable<String, Object> bad = new Hashtable<>(good);
            bad.put("fsync", "maybe");
            updateConfig(PID, bad);
            await("the refusal logged", SERVICE_TIMEOUT, () -> logHasLine("Configuration of " + PID + " refused",
                    "fsync: 'maybe' is neither true nor false"));
            assertEquals(Optional.empty(), failure());
            assertEquals(serviceId, bundleContext.getServiceReferences(ObjectStore.class, "(objrdma.store=fs)")
                    .iterator().next().getProperty(org.osgi.framework.Constants.SERVICE_ID));
            assertTrue(before.secretKey(accessKey).isPresent());
        } finally {
            updateConfig(PID, good);
        }
        storeKnowing(accessKey);
    }

    private Optional<String> failure() {
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            if (PID.equals(d.name)) {
                for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
                    if (c.state == ComponentConfigurationDTO.FAILED_ACTIVATION && c.failure != null) {
                        return Optional.of(c.failure);
                    }
                }
            }
        }
        return Optional.empty();
    }
}
