package org.objrdma.metrics.internal;

import java.util.regex.Pattern;

/**
 * The validated configuration of the endpoint. {@link #from} refuses a bad value with an
 * {@link IllegalArgumentException} naming the property.
 */
record MetricsSettings(String path, boolean enabled) {

    static final String PID = "org.objrdma.metrics";
    static final String DEFAULT_PATH = "/metrics";

    // exact paths only: a wildcard would take other requests from the S3 gateway's "/*"
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._-]+)+");

    MetricsSettings {
        if (path == null || !PATH.matcher(path).matches()) {
            throw new IllegalArgumentException(PID + ": path = " + path + " must be an exact path such as /metrics: "
                    + "'/' then segments of letters, digits, '-', '_', '.' separated by '/', no wildcard, no trailing '/'");
        }
        for (String segment : path.substring(1).split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException(PID + ": path = " + path + " must not hold a '.' or '..' segment");
            }
        }
    }

    static MetricsSettings from(MetricsConfig c) {
        return new MetricsSettings(c.path() == null ? null : c.path().strip(), c.enabled());
    }
}
