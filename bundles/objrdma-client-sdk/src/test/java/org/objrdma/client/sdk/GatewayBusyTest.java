package org.objrdma.client.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * Which refusals move the bytes over HTTP (a passing resource limit) and which stay errors. The end-to-end cases
 * (a real gateway whose staging is full) are in {@link RdmaS3Test#aBusyGatewaysBytesGoOverHttp}; these are the
 * gateway's other answers, which a loopback gateway cannot be brought to give on demand.
 */
class GatewayBusyTest {
    @Test
    void resourceLimitsAreBusy() {
        assertEquals("busy: 429 RdmaResourceLimit: PREPARE: limit reached",
                GatewayBusy.of(429, "RdmaResourceLimit", "PREPARE: limit reached").reason());
        // the hipObject status style answers the same limit 503; so do the RC connection table's bounds
        assertEquals("busy: 503 RdmaResourceLimit: Every RC connection is in use",
                GatewayBusy.of(503, "RdmaResourceLimit", "Every RC connection is in use").reason());
        assertEquals("busy: 503 SlowDown: RDMA resources are busy (-ENOMEM)",
                GatewayBusy.of(503, "SlowDown", "RDMA resources are busy (-ENOMEM)").reason());
        assertEquals("busy: 429", GatewayBusy.of(429, null, "").reason());
    }

    @Test
    void otherRefusalsStayErrors() {
        assertNull(GatewayBusy.of(503, "RdmaServiceUnavailable", "PREPARE: shutting down"));
        assertNull(GatewayBusy.of(503, null, "no body"));
        assertNull(GatewayBusy.of(502, "RdmaTransferFailed", "READY: wire"));
        assertNull(GatewayBusy.of(409, "RdmaSessionConflict", "READY: state"));
        assertNull(GatewayBusy.of(403, "SignatureDoesNotMatch", "bad"));
        assertNull(GatewayBusy.of(500, "SlowDown", "not a 503"));
    }
}
