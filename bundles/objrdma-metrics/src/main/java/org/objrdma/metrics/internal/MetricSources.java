package org.objrdma.metrics.internal;

import java.util.Collection;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;

/**
 * Where the figures come from at the moment of a scrape. Each service may be absent (its bundle stopped, the
 * feature not installed): then its meters read NaN, or are not there for the ones named by a run-time key.
 */
interface MetricSources {

    /** The counters and histograms, or null. */
    TelemetryView telemetry();

    /** The staging pool, or null. */
    StagingPool staging();

    /** The session manager, or null. */
    SessionManager sessions();

    /** Every transport service there now. */
    Collection<Transport> transports();
}
