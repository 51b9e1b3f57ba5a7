package org.objrdma.shell.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.stream.Collectors;

import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/** How the commands print service properties: arrays and collections joined, missing values as "-". */
final class ServiceProperties {

    private ServiceProperties() {
    }

    static String text(ServiceReference<?> ref, String name) {
        return text(ref.getProperty(name));
    }

    static String text(Object value) {
        if (value == null) {
            return "-";
        }
        if (value instanceof Object[] array) {
            return Arrays.stream(array).map(String::valueOf).collect(Collectors.joining(","));
        }
        if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        return String.valueOf(value);
    }

    /** The ranking the framework uses: only an Integer counts, anything else ranks 0. */
    static int ranking(ServiceReference<?> ref) {
        return ref.getProperty(Constants.SERVICE_RANKING) instanceof Integer i ? i : 0;
    }

    static long serviceId(ServiceReference<?> ref) {
        return (Long) ref.getProperty(Constants.SERVICE_ID);
    }
}
