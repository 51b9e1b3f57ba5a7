package org.objrdma.shell.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.objrdma.api.transport.Transport;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.ReferenceDTO;
import org.osgi.service.component.runtime.dto.SatisfiedReferenceDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;
import org.osgi.framework.dto.ServiceReferenceDTO;

/**
 * Which component binds which Transport service, read from Service Component Runtime's DTOs: every
 * reference of a component (any bundle) whose interface is {@link Transport}.
 */
final class TransportBindings {

    /**
     * One Transport reference of one component configuration.
     *
     * @param component        component name
     * @param configurationPid the PID whose {@code <reference>.target} steers the reference
     * @param policy           the component's configuration policy (optional, require, ignore)
     * @param reference        reference name
     * @param unary            true for a 0..1 or 1..1 reference: the one transport the consumer uses
     * @param descriptionTarget the target filter the component declares, or null
     * @param target           the target in effect (the declared one or a configured override), or null
     * @param boundServiceIds  service ids bound now; empty when unsatisfied
     * @param state            the configuration's state (ACTIVE, SATISFIED, UNSATISFIED_REFERENCE, ...)
     */
    record Binding(String component, String configurationPid, String policy, String reference, boolean unary,
                   String descriptionTarget, String target, List<Long> boundServiceIds, String state) {
    }

    private TransportBindings() {
    }

    static List<Binding> all(ServiceComponentRuntime scr) {
        List<Binding> out = new ArrayList<>();
        for (ComponentDescriptionDTO description : scr.getComponentDescriptionDTOs()) {
            for (ReferenceDTO reference : description.references) {
                if (!Transport.class.getName().equals(reference.interfaceName)) {
                    continue;
                }
                boolean unary = reference.cardinality.endsWith("..1");
                String pid = description.configurationPid.length > 0 ? description.configurationPid[0]
                        : description.name;
                var configurations = scr.getComponentConfigurationDTOs(description);
                if (configurations.isEmpty()) {
                    out.add(new Binding(description.name, pid, description.configurationPolicy, reference.name,
                            unary, reference.target, reference.target, List.of(), "DISABLED_OR_UNCONFIGURED"));
                }
                for (ComponentConfigurationDTO configuration : configurations) {
                    out.add(binding(description, pid, reference, unary, configuration));
                }
            }
        }
        return out;
    }

    private static Binding binding(ComponentDescriptionDTO description, String pid, ReferenceDTO reference,
                                   boolean unary, ComponentConfigurationDTO configuration) {
        List<Long> bound = new ArrayList<>();
        String target = reference.target;
        for (SatisfiedReferenceDTO satisfied : configuration.satisfiedReferences) {
            if (satisfied.name.equals(reference.name)) {
                target = satisfied.target;
                for (ServiceReferenceDTO service : satisfied.boundServices) {
                    bound.add(service.id);
                }
            }
        }
        for (UnsatisfiedReferenceDTO unsatisfied : configuration.unsatisfiedReferences) {
            if (unsatisfied.name.equals(reference.name)) {
                target = unsatisfied.target;
            }
        }
        return new Binding(description.name, pid, description.configurationPolicy, reference.name, unary,
                reference.target, target, List.copyOf(bound), stateName(configuration.state));
    }

    /** The unary Transport reference of {@code component}, the one a pin steers. */
    static Optional<Binding> unaryOf(ServiceComponentRuntime scr, String component) {
        return all(scr).stream().filter(b -> b.component().equals(component) && b.unary()).findFirst();
    }

    /** Component name → its unary Transport bindings, for completion and listings. */
    static Map<String, Binding> consumers(ServiceComponentRuntime scr) {
        Map<String, Binding> byName = new TreeMap<>();
        for (Binding b : all(scr)) {
            if (b.unary()) {
                byName.putIfAbsent(b.component(), b);
            }
        }
        return byName;
    }

    /** The configuration property that replaces a reference's target (Declarative Services 112.6). */
    static String targetProperty(Binding binding) {
        return binding.reference() + ".target";
    }

    /** The target that keeps the declared filter and adds the transport name. */
    static String pinnedTarget(Binding binding, String transportName) {
        String byName = "(" + Transport.PROPERTY_NAME + "=" + escape(transportName) + ")";
        String declared = binding.descriptionTarget();
        return declared == null || declared.isBlank() ? byName : "(&" + byName + declared + ")";
    }

    private static String escape(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            if (c == '(' || c == ')' || c == '*' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    static String stateName(int state) {
        return switch (state) {
            case ComponentConfigurationDTO.ACTIVE -> "ACTIVE";
            case ComponentConfigurationDTO.SATISFIED -> "SATISFIED";
            case ComponentConfigurationDTO.UNSATISFIED_REFERENCE -> "UNSATISFIED_REFERENCE";
            case ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION -> "UNSATISFIED_CONFIGURATION";
            case ComponentConfigurationDTO.FAILED_ACTIVATION -> "FAILED_ACTIVATION";
            default -> "STATE_" + state;
        };
    }
}
