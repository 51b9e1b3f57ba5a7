package org.objrdma.metrics.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the Prometheus scrape endpoint, PID {@code org.objrdma.metrics}. */
@ObjectClassDefinition(id = "org.objrdma.metrics", name = "objrdma Prometheus endpoint",
        description = "objrdma's counters, latencies, staging pool, sessions and transports in the Prometheus text "
                + "format, served on Pax Web's HTTP Whiteboard (the same Jetty, port and TLS as the S3 gateway).")
public @interface MetricsConfig {

    @AttributeDefinition(name = "Path",
            description = "The exact HTTP path of the scrape endpoint: starts with '/', then one or more segments of "
                    + "letters, digits, '-', '_', '.' separated by '/'; no wildcard, no trailing '/'. It takes "
                    + "precedence over the S3 gateway's '/*' for this one path, so a bucket of the same name is "
                    + "hidden from S3 on this gateway. Default /metrics.")
    String path() default MetricsSettings.DEFAULT_PATH;

    @AttributeDefinition(name = "Enabled",
            description = "Serve the endpoint. false removes the servlet (the meters stay, nothing is served). "
                    + "Default true.")
    boolean enabled() default true;
}
