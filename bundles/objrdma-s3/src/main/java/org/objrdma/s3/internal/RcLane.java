package org.objrdma.s3.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.Errno;

/**
 * The lane of a cuObject-over-RC connection: staging buffers borrowed on the connection's verbs transport (the
 * pool's registrations there, local-only: the client is granted nothing), each chunk moved with one signaled RDMA
 * WRITE (GET) or READ (PUT) without immediate data on the connection's queue pair, to or from the client memory
 * the request's token names. A failed or timed-out chunk closes the queue pair at once (its work requests flush,
 * the device lets go of the staging buffers) and the connection ends when the request releases it.
 */
final class RcLane implements ChunkLane {

    private static final Duration BORROW_WAIT = Duration.ofSeconds(5);

    private final RcConnection connection;
    private final PrincipalId principal;
    private final String key;
    private final long remoteStart;
    private final int rkey;
    private final Duration timeout;
    private final StagingLease[] leases = new StagingLease[2];

    RcLane(RcConnection connection, PrincipalId principal, String key, long remoteStart, int rkey, Duration timeout) {
        this.connection = connection;
        this.principal = principal;
        this.key = key;
        this.remoteStart = remoteStart;
        this.rkey = rkey;
        this.timeout = timeout;
    }

    @Override
    public StagingLease borrow(StagingPool pool, int chunk) throws StagingException {
        return pool.borrow(chunk, principal, "rc " + key, BORROW_WAIT, connection.transport);
    }

    @Override
    public void attach(int slot, StagingLease lease) throws CuObjPipeline.Unavailable {
        if (!lease.region().transportName().equals(connection.transport.name())) {
            throw new CuObjPipeline.Unavailable("the staging buffer is not registered on " + connection.transport.name(),
                    false);
        }
        leases[slot] = lease;
    }

    @Override
    public long move(boolean get, int slot, long remoteOffset, int n, int[] status) {
        StagingLease lease = leases[slot];
        long offset = lease.segment().address() - lease.region().segment().address();
        ScatterGatherEntry local = new ScatterGatherEntry(lease.region(), offset, n);
        long wrId = connection.nextWorkRequestId();
        WorkRequest wr = get ? WorkRequest.write(wrId, local, remoteStart + remoteOffset, rkey)
                : WorkRequest.read(wrId, local, remoteStart + remoteOffset, rkey);
        BatchResult r;
        try {
            r = connection.channel.submit(List.of(wr), timeout).join();
        } catch (CompletionException e) {
            connection.channel.close();
            return -(e.getCause() instanceof TransportException t && t.error()
                    == org.objrdma.api.transport.TransportError.CLOSED ? Errno.ENOTCONN : Errno.EIO);
        }
        if (r.isSuccess()) {
            return n;
        }
        connection.channel.close();
        if (r.timedOut()) {
            return -Errno.ETIMEDOUT;
        }
        status[0] = r.firstFailure().map(Completion::status).map(s -> s.code()).orElse(0);
        return -Errno.EIO;
    }

    @Override
    public void close() {
        // the leases are the pipeline's; nothing was registered here
    }
}
