package org.objrdma.cuobj.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * A configuration change of PID org.objrdma.cuobj on a real server over a real TCP transport, with a fake
 * bundle context recording registrations: a bad value changes nothing, a target change alone restarts
 * nothing, another valid change restarts the server with the new settings.
 */
class CuObjServerComponentModifiedTest {

    /** Each registration's properties, and whether it was unregistered. */
    private final List<Dictionary<String, ?>> registered = new ArrayList<>();
    private final List<boolean[]> unregistered = new ArrayList<>();

    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("registerService")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    @SuppressWarnings("unchecked")
                    Dictionary<String, ?> props = (Dictionary<String, ?>) args[2];
                    boolean[] gone = {false};
                    registered.add(props);
                    unregistered.add(gone);
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                            (p, m, a) -> {
                                if (m.getName().equals("unregister")) {
                                    gone[0] = true;
                                }
                                return null;
                            });
                });
    }

    /** The metatype defaults, but for {@code overrides} (method name → value). */
    private static CuObjServerConfig config(Map<String, Object> overrides) {
        return (CuObjServerConfig) Proxy.newProxyInstance(CuObjServerConfig.class.getClassLoader(),
                new Class<?>[] {CuObjServerConfig.class}, (proxy, method, args) -> method.getName().equals("annotationType")
                        ? CuObjServerConfig.class : overrides.getOrDefault(method.getName(), method.getDefaultValue()));
    }

    private static Map<String, Object> properties(String... keyValues) {
        Map<String, Object> m = new HashMap<>(Map.of("service.pid", "org.objrdma.cuobj", "component.id", 7L));
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void aBadValueChangesNothingAndAValidOneRestartsTheServer() throws Exception {
        try (TcpTransport transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP)) {
            CuObjServerComponent component = new CuObjServerComponent();
            component.bindTransport(transport);
            BundleContext context = context();
            component.activate(context, config(Map.of()), properties());
            assertEquals(1, registered.size());
            assertEquals(128, registered.get(0).get("num.dcis"));

            component.modified(context, config(Map.of("port", 70000)), properties("port", "70000"));
            component.modified(context, config(Map.of("num_dcis", -1)), properties("num.dcis", "-1"));
            assertEquals(1, registered.size());
            assertFalse(unregistered.get(0)[0], "the running server kept its registration");

            component.modified(context, config(Map.of()), properties("transport.target", "(objrdma.transport.name=tcp)"));
            assertEquals(1, registered.size(), "a target change is DS's to apply");

            component.modified(context, config(Map.of("num_dcis", 16)), properties("num.dcis", "16"));
            assertTrue(unregistered.get(0)[0]);
            assertEquals(2, registered.size());
            assertEquals(16, registered.get(1).get("num.dcis"));
            component.deactivate();
            assertTrue(unregistered.get(1)[0]);
        }
    }

    @Test
    void restartingChangesIgnoresWhatConfigAdminAndDsAdd() {
        assertEquals("num.dcis, port", CuObjServerComponent.restartingChanges(
                Map.of("num.dcis", "128", "port", "0", "service.pid", "a", "felix.fileinstall.filename", "x"),
                Map.of("num.dcis", 16, "port", "1", "component.id", 3L, "transport.target", "(a=b)")));
        assertEquals("", CuObjServerComponent.restartingChanges(Map.of("port", 0), Map.of("port", "0")));
    }
}
