package org.objrdma.metrics.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the Prometheus scrape endpoint, PID {@code org.objrdma.metrics}. */
@ObjectClassDefinition(id = "org.objrdma.metrics", name = "objrdma Prometheus endpoint",
        description = "objrdma's counters, latencies, staging pool, sessions and transports in the Prometheus text "
                + "format, served on Pax Web's HTTP Whiteboard (the same Jetty, port and TLS as the S3 gateway).")
public @interface MetricsConfig {

    @AttributeDefinition(name = "Path",
            description = "The exact HTTP path of the scrape endpoint: starts with '/', then one or more segments of "
                    + "letters, digits, '-', '_', '.' separated by '/'; no wildcard, no trailing '/'. Its first "
                    + "segment must not be a legal S3 bucket name (the endpoint takes precedence over the S3 "
                    + "gateway's '/*' for this path and would hide that bucket). Default /.objrdma/metrics.")
    String path() default MetricsSettings.DEFAULT_PATH;

    @AttributeDefinition(name = "Bearer token", type = AttributeType.PASSWORD,
            description = "When set, a scrape must send 'Authorization: Bearer <token>' (else 401); at least 16 "
                    + "characters of A-Z a-z 0-9 - . _ ~ + / then '=' padding. Never logged. Default empty (none).")
    String bearer_token() default "";

    @AttributeDefinition(name = "Loopback only",
            description = "Answer only clients connecting from a loopback address (127.0.0.0/8, ::1); others get "
                    + "403. Default true.")
    boolean loopback_only() default true;

    @AttributeDefinition(name = "Enabled",
            description = "Serve the endpoint. false removes the servlet (the meters stay, nothing is served). "
                    + "Default true.")
    boolean enabled() default true;
}
