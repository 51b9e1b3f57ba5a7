package org.objrdma.verbs.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objrdma.api.transport.Transport;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.VerbsRuntime;
import org.objrdma.testsupport.Configs;
import org.objrdma.testsupport.FakeBundleContext;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The {@code org.objrdma.verbs} component activated for a test with a recording BundleContext: everything it
 * publishes is the real thing (library, device, transport), only the framework is not.
 */
public final class ComponentFixture implements AutoCloseable {
    public final FakeBundleContext bundle = new FakeBundleContext();
    public final VerbsComponent component = new VerbsComponent();
    private boolean active;

    private ComponentFixture() {
    }

    /** Activates with {@code config} (keys are the annotation's method names, e.g. {@code library_path}). */
    public static ComponentFixture activate(Map<String, Object> config) {
        ComponentFixture f = new ComponentFixture();
        f.component.activate(f.bundle.context, Configs.of(VerbsConfig.class, config));
        f.active = true;
        return f;
    }

    /** Activates on the software device with a Telemetry service bound, as DS would bind it. */
    public static ComponentFixture software(org.objrdma.api.telemetry.Telemetry telemetry) {
        ComponentFixture f = new ComponentFixture();
        try {
            java.lang.reflect.Field field = VerbsComponent.class.getDeclaredField("telemetry");
            field.setAccessible(true);
            field.set(f.component, telemetry);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        f.component.activate(f.bundle.context, Configs.of(VerbsConfig.class, Map.of("library_path", SoftVerbs.library())));
        f.active = true;
        return f;
    }

    /** Activates on the software device with {@code extra} configuration. */
    public static ComponentFixture software(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(extra);
        config.putIfAbsent("library_path", SoftVerbs.library());
        return activate(config);
    }

    public static ComponentFixture software() {
        return software(Map.of());
    }

    public VerbsRuntime runtime() {
        return (VerbsRuntime) bundle.live(VerbsRuntime.class).getFirst().service;
    }

    public List<FakeBundleContext.Registered> devices() {
        return bundle.live(VerbsDevice.class);
    }

    public List<FakeBundleContext.Registered> transports() {
        return bundle.live(Transport.class);
    }

    /** The one published transport. */
    public Transport transport() {
        List<FakeBundleContext.Registered> t = transports();
        if (t.size() != 1) {
            throw new IllegalStateException("expected one transport, the component published " + t.size()
                    + "; runtime: " + runtime().unavailabilityCause().orElse("available"));
        }
        return (Transport) t.getFirst().service;
    }

    @Override
    public void close() {
        if (active) {
            active = false;
            component.deactivate();
        }
    }
}
