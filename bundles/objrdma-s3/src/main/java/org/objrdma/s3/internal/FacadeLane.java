package org.objrdma.s3.internal;

import java.time.Duration;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjPrincipal;
import org.objrdma.cuobj.CuObjService;
import org.objrdma.cuobj.RdmaBuffer;

/**
 * The cuObject facade's lane: staging buffers registered with the facade, one facade channel id, the client's
 * agent dialed with the request principal's agent key ({@link CuObjPrincipal}).
 */
final class FacadeLane implements ChunkLane {

    private static final Duration BORROW_WAIT = Duration.ofSeconds(5);

    private final CuObjService server;
    private final CuObjPrincipal principal;
    private final String key;
    private final String descriptor;
    private final long remoteStart;
    private final RdmaBuffer[] buffers = new RdmaBuffer[2];
    private int channel = CuObj.INVALID_CHANNEL_ID;

    FacadeLane(CuObjService server, CuObjPrincipal principal, String key, String descriptor, long remoteStart)
            throws CuObjPipeline.Unavailable {
        this.server = server;
        this.principal = principal;
        this.key = key;
        this.descriptor = descriptor;
        this.remoteStart = remoteStart;
        this.channel = server.allocateChannelId();
        if (channel == CuObj.INVALID_CHANNEL_ID) {
            throw new CuObjPipeline.Unavailable("every cuObject channel is in use", true);
        }
    }

    @Override
    public StagingLease borrow(StagingPool pool, int chunk) throws StagingException {
        return pool.borrow(chunk, principal.id(), "cuobj " + key, BORROW_WAIT);
    }

    @Override
    public void attach(int slot, StagingLease lease) throws CuObjPipeline.Unavailable {
        buffers[slot] = server.registerBuffer(lease.segment(), (int) lease.size());
        if (buffers[slot] == null) {
            throw new CuObjPipeline.Unavailable("the cuObject server could not register a staging buffer", false);
        }
    }

    @Override
    public long move(boolean get, int slot, long remoteOffset, int n, int[] status) {
        RdmaBuffer buf = buffers[slot];
        return get ? server.handleGetObject(principal, key, buf, remoteStart + remoteOffset, n, descriptor, channel, 0,
                status, null)
                : server.handlePutObject(principal, key, buf, remoteStart + remoteOffset, n, descriptor, channel, 0,
                status, null);
    }

    @Override
    public void close() {
        if (channel != CuObj.INVALID_CHANNEL_ID) {
            server.freeChannelId(channel);
            channel = CuObj.INVALID_CHANNEL_ID;
        }
        for (int i = 1; i >= 0; i--) {
            if (buffers[i] != null) {
                server.deRegisterBuffer(buffers[i]);
                buffers[i] = null;
            }
        }
    }
}
