package org.objrdma.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * A BundleContext that records {@code registerService} calls and their unregistration (a second unregister throws,
 * as the framework's does) and answers {@code getProperty} from what the test set: enough to drive a component's
 * activate / modified / deactivate in a unit test. The real framework runs in the Pax Exam tests.
 */
public final class FakeBundleContext {

    /** One registration as the component made it. */
    public static final class Registered {
        public final String objectClass;
        public final Object service;
        public final Map<String, Object> properties;
        private volatile boolean unregistered;

        Registered(String objectClass, Object service, Map<String, Object> properties) {
            this.objectClass = objectClass;
            this.service = service;
            this.properties = properties;
        }

        public boolean isUnregistered() {
            return unregistered;
        }
    }

    private final List<Registered> registered = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, String> properties = new ConcurrentHashMap<>();
    private final Map<String, RuntimeException> unregisterFailures = new ConcurrentHashMap<>();

    /**
     * The next unregistration of a {@code type} service throws {@code failure} (after the service is gone, as
     * when a framework listener fails): for the tests of a shutdown path that must go on past it.
     */
    public void failNextUnregister(Class<?> type, RuntimeException failure) {
        unregisterFailures.put(type.getName(), failure);
    }

    public final BundleContext context = (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {BundleContext.class}, this::invoke);

    private Object invoke(Object proxy, Method method, Object[] args) {
        if (method.getName().equals("registerService") && args.length == 3) {
            String clazz = args[0] instanceof Class<?> c ? c.getName()
                    : args[0] instanceof String s ? s : ((String[]) args[0])[0];
            Map<String, Object> props = Collections.synchronizedMap(new HashMap<>());
            @SuppressWarnings("unchecked")
            Dictionary<String, Object> d = (Dictionary<String, Object>) args[2];
            if (d != null) {
                for (Enumeration<String> keys = d.keys(); keys.hasMoreElements(); ) {
                    String k = keys.nextElement();
                    props.put(k, d.get(k));
                }
            }
            Registered r = new Registered(clazz, args[1], props);
            registered.add(r);
            InvocationHandler regHandler = (p, m, a) -> {
                if (m.getName().equals("unregister")) {
                    if (r.unregistered) {
                        throw new IllegalStateException("already unregistered");
                    }
                    r.unregistered = true;
                    RuntimeException failure = unregisterFailures.remove(clazz);
                    if (failure != null) {
                        throw failure;
                    }
                    return null;
                }
                if (m.getName().equals("toString")) {
                    return "registration of " + clazz;
                }
                if (m.getName().equals("setProperties")) {
                    @SuppressWarnings("unchecked")
                    Dictionary<String, Object> nd = (Dictionary<String, Object>) a[0];
                    synchronized (r.properties) {
                        r.properties.clear();
                        for (Enumeration<String> keys = nd.keys(); keys.hasMoreElements(); ) {
                            String k = keys.nextElement();
                            r.properties.put(k, nd.get(k));
                        }
                    }
                    return null;
                }
                throw new UnsupportedOperationException(m.getName());
            };
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                    regHandler);
        }
        if (method.getName().equals("getProperty") && args.length == 1) {
            return properties.get((String) args[0]);
        }
        if (method.getName().equals("toString")) {
            return "FakeBundleContext";
        }
        throw new UnsupportedOperationException("FakeBundleContext does not implement " + method.getName());
    }

    /** What {@code getProperty(key)} answers from now on (a framework property such as {@code karaf.data}). */
    public FakeBundleContext property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /** Every registration made, in order, unregistered ones too. */
    public List<Registered> all() {
        synchronized (registered) {
            return List.copyOf(registered);
        }
    }

    /** Registrations still in place, of {@code type}. */
    public List<Registered> live(Class<?> type) {
        synchronized (registered) {
            return registered.stream().filter(r -> !r.unregistered && r.objectClass.equals(type.getName())).toList();
        }
    }

    /** Every registration still in place. */
    public List<Registered> live() {
        synchronized (registered) {
            return registered.stream().filter(r -> !r.unregistered).toList();
        }
    }
}
