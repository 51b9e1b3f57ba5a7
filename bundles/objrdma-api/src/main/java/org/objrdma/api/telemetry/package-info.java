/**
 * Telemetry: a closed set of counters with stable ids, counters keyed by a run-time key, latency
 * histograms, a read-only view and a no-op instance.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.objrdma.api.telemetry;
