package org.objrdma.cuobj;

import java.util.function.Supplier;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.cuobj.internal.TelemetryLog;
import org.objrdma.wire.Errno;

/**
 * How a transfer's end is told: the {@code CUOBJ_*} counters of the bound {@link Telemetry} and the server's
 * telemetry lines (ERROR for every refusal with its reason, OP and DEBUG for completed requests).
 */
final class TransferReport {
    private final Supplier<Telemetry> telemetry;
    private final TelemetryLog log;

    TransferReport(Supplier<Telemetry> telemetry, TelemetryLog log) {
        this.telemetry = telemetry;
        this.log = log;
    }

    /** An ERROR line that counts nothing (a request served another way than asked). */
    void error(String text) {
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", text);
        }
    }

    /** Counts and logs a completed request (asynchronous ones also when they failed). */
    void finished(boolean get, String key, long size, WcStatus st, long startedNanos, int channel, boolean async) {
        Telemetry tel = telemetry.get();
        if (st.isSuccess()) {
            if (tel != null) {
                tel.increment(get ? Counter.CUOBJ_GETS : Counter.CUOBJ_PUTS);
            }
            if (log.opEnabled(get ? CuObj.CUOBJ_LOG_OP_GET : CuObj.CUOBJ_LOG_OP_PUT)) {
                log.line("OP", (get ? "GET" : "PUT") + " key=" + key + " bytes=" + size + " us="
                        + (System.nanoTime() - startedNanos) / 1000 + " channel=" + channel + (async ? " async" : ""));
            }
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_DEBUG)) {
                log.line("DEBUG", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + " size=" + size
                        + " channel=" + channel + (async ? " async" : "") + " -> " + size);
            }
        } else {
            if (tel != null) {
                tel.increment(Counter.CUOBJ_ERRORS);
            }
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
                log.line("ERROR", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + " channel="
                        + channel + " async completion failed: " + st);
            }
        }
    }

    /** Counts and logs a refusal; returns {@code -errno}. */
    long fail(boolean get, String key, int errno, String why) {
        Telemetry tel = telemetry.get();
        if (tel != null) {
            tel.increment(Counter.CUOBJ_ERRORS);
        }
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + ": -"
                    + Errno.name(errno) + ": " + why);
        }
        return -errno;
    }

}
