package org.objrdma.verbs.internal;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import org.objrdma.verbs.VerbsRuntime;

/** What one activation of the component found; immutable. */
record RuntimeStatus(String library, String cause, List<String> devices, List<String> skippedDevices)
        implements VerbsRuntime {

    RuntimeStatus {
        devices = List.copyOf(devices);
        skippedDevices = List.copyOf(skippedDevices);
    }

    @Override
    public boolean isAvailable() {
        return cause == null;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return Optional.ofNullable(cause);
    }

    Dictionary<String, Object> properties() {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(PROPERTY_AVAILABLE, isAvailable());
        p.put(PROPERTY_LIBRARY, library);
        if (cause != null) {
            p.put(PROPERTY_CAUSE, cause);
        }
        return p;
    }
}
