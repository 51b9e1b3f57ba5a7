package org.objrdma.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.RcStatus;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaSettings.RcStatusStyle;

/**
 * The hipobj-rc-v2 status table of the objrdma-s3 README, row by row, in both styles: where versitygw's routes and
 * hipObject's reference server differ (unknown session, cookie mismatch, limit, timeout, transfer failure) each style
 * answers its convention with the same S3 code; every other row is the same in both.
 */
class RcErrorsTest {

    private record Row(String code, int objrdma, int hipobj) {
    }

    private static final Map<RcStatus, Row> TABLE = new EnumMap<>(RcStatus.class);

    static {
        TABLE.put(RcStatus.ARG, new Row("InvalidRdmaRequest", 400, 400));
        TABLE.put(RcStatus.SHORT, new Row("InvalidRdmaRequest", 400, 400));
        TABLE.put(RcStatus.TRUNC, new Row("InvalidRdmaRequest", 400, 400));
        TABLE.put(RcStatus.NO_SESSION, new Row("NoSuchRdmaSession", 404, 409));
        TABLE.put(RcStatus.SESSION, new Row("NoSuchRdmaSession", 404, 409)); // another principal's: as unknown
        TABLE.put(RcStatus.STALE, new Row("RdmaSessionConflict", 409, 409));
        TABLE.put(RcStatus.STATE, new Row("RdmaSessionConflict", 409, 409));
        TABLE.put(RcStatus.DOUBLE, new Row("RdmaSessionConflict", 409, 409));
        TABLE.put(RcStatus.LIMIT, new Row("RdmaResourceLimit", 429, 503));
        TABLE.put(RcStatus.WIRE, new Row("RdmaTransferFailed", 502, 500));
        TABLE.put(RcStatus.SHUTDOWN, new Row("RdmaServiceUnavailable", 503, 503));
    }

    @Test
    void everySessionStatusInBothStyles() {
        for (RcStatus status : RcStatus.values()) {
            if (status == RcStatus.OK) {
                continue;
            }
            Row row = TABLE.getOrDefault(status, new Row("InternalError", 500, 500));
            S3Exception o = RcErrors.of(status, "step", RcStatusStyle.OBJRDMA);
            S3Exception h = RcErrors.of(status, "step", RcStatusStyle.HIPOBJ);
            assertEquals(row.code(), o.code(), status.name());
            assertEquals(row.code(), h.code(), status.name());
            assertEquals(row.objrdma(), o.status(), status.name());
            assertEquals(row.hipobj(), h.status(), status.name());
            assertEquals(o.status(), RcErrors.of(status, "step").status(), "the two-argument form is the objrdma style");
        }
    }

    @Test
    void timeoutAndCookieMismatch() {
        assertEquals(504, RcErrors.timeout(RcStatusStyle.OBJRDMA).status());
        assertEquals(408, RcErrors.timeout(RcStatusStyle.HIPOBJ).status());
        assertEquals("RdmaTransferTimeout", RcErrors.timeout(RcStatusStyle.HIPOBJ).code());
        assertEquals(404, RcErrors.cookieMismatch(RcStatusStyle.OBJRDMA).status());
        assertEquals("NoSuchRdmaSession", RcErrors.cookieMismatch(RcStatusStyle.OBJRDMA).code());
        assertEquals(403, RcErrors.cookieMismatch(RcStatusStyle.HIPOBJ).status());
        assertEquals("RdmaCookieMismatch", RcErrors.cookieMismatch(RcStatusStyle.HIPOBJ).code());
    }
}
