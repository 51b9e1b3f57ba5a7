package org.objrdma.shell.internal;

import java.util.Map;
import java.util.StringJoiner;

import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * What {@code rdma:gateway} prints and the gateway MBean reports, read once from the live services: the
 * state of component {@code org.objrdma.s3} (SCR DTO), the {@code osgi.http.endpoint} of every
 * HttpServiceRuntime, the S3 request and error counters and the errors by S3 code.
 */
record GatewayStatus(String state, String endpoints, long requests, long errors, Map<String, Long> errorsByCode) {

    static final String COMPONENT = "org.objrdma.s3";
    static final String HTTP_RUNTIME = "org.osgi.service.http.runtime.HttpServiceRuntime";

    static GatewayStatus read(BundleContext context, ServiceComponentRuntime scr, TelemetryView telemetry) {
        String state = "not installed";
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            if (d.name.equals(COMPONENT)) {
                var configurations = scr.getComponentConfigurationDTOs(d);
                state = configurations.isEmpty() ? "no configuration or disabled"
                        : TransportBindings.stateName(configurations.iterator().next().state);
            }
        }
        StringJoiner endpoints = new StringJoiner(",");
        try {
            for (ServiceReference<?> runtime : DevicesCommand.references(context, HTTP_RUNTIME)) {
                endpoints.add(ServiceProperties.text(runtime, "osgi.http.endpoint"));
            }
        } catch (InvalidSyntaxException noFilterGiven) {
            throw new IllegalStateException(noFilterGiven);
        }
        return new GatewayStatus(state, endpoints.length() == 0 ? "-" : endpoints.toString(),
                telemetry.value(Counter.S3_REQUESTS), telemetry.value(Counter.S3_ERRORS),
                telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE));
    }
}
