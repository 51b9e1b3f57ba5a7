package org.objrdma.s3.rdma;

import java.util.Objects;
import java.util.function.Supplier;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.cuobj.CuObjService;

/**
 * The services behind the RDMA paths, read on every request (each may come and go: the suppliers answer
 * null while one is absent). Without a session manager the hipobj-rc-v2 routes answer
 * {@code 503 RdmaServiceUnavailable}; without a cuObject server or a staging pool, a cuObject request is
 * declined ({@code x-amz-rdma-reply: 501}) and a GET answers with the body.
 *
 * @param sessions the hipobj-rc-v2 session core, or null
 * @param staging  the staging pool the cuObject path borrows its buffers from, or null
 * @param cuObj    the cuObject server facade, or null
 * @param settings thresholds and chunk size
 * @param rcConnections the cuObject-over-RC connections ({@code /.s3rdma-rc/*}, {@code rc:} tokens), or
 *                      {@link RcConnections#NONE}; since 1.2.0
 */
public record RdmaServices(Supplier<SessionManager> sessions, Supplier<StagingPool> staging,
        Supplier<CuObjService> cuObj, RdmaSettings settings, RcConnections rcConnections) {

    /** No RDMA services: plain S3; every RDMA request is declined or answered 503. */
    public static final RdmaServices NONE = new RdmaServices(() -> null, () -> null, () -> null, RdmaSettings.DEFAULTS);

    public RdmaServices {
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(staging, "staging");
        Objects.requireNonNull(cuObj, "cuObj");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(rcConnections, "rcConnections");
    }

    /** Without cuObject-over-RC connections ({@link RcConnections#NONE}). */
    public RdmaServices(Supplier<SessionManager> sessions, Supplier<StagingPool> staging, Supplier<CuObjService> cuObj,
            RdmaSettings settings) {
        this(sessions, staging, cuObj, settings, RcConnections.NONE);
    }

    /** Fixed services (tests, a host store that owns them). */
    public static RdmaServices of(SessionManager sessions, StagingPool staging, CuObjService cuObj,
            RdmaSettings settings) {
        return new RdmaServices(() -> sessions, () -> staging, () -> cuObj, settings);
    }
}
