package org.objrdma.session.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.DialPacing;

/**
 * The data phase of a GET session larger than one staging buffer: the range moves in chunks of one buffer
 * through the session's two staging buffers. Chunk {@code n} is RDMA-written from one buffer to offset
 * {@code n · chunk} of the client's region while chunk {@code n+1} is read from the store (the caller's
 * {@link StagingSource}) into the other; the last chunk goes as WRITE_WITH_IMM carrying the cookie, so the
 * client's one completion comes only after every byte (an RC queue pair delivers writes in order, and each
 * chunk's completion is awaited before its buffer is refilled). The client sees exactly what a one-buffer GET
 * shows it: one WRITE_WITH_IMM completion for the whole range.
 *
 * <p>Any chunk failing — a read from the store, an object whose etag changed since PREPARE, a completion
 * error, a timeout — ends the phase with that outcome; writes still moving are stopped by the session's
 * teardown, which closes the channel before it returns the buffers. This is the cuObject gateway's two-buffer
 * pipeline ({@code CuObjPipeline} in objrdma-s3) on the session's own channel: that one drives the facade's
 * blocking calls from the S3 layer, this one posts work requests inside the session core, where the channel,
 * its completions and the READY outcome live.
 */
final class ChunkedGetPhase {

    /**
     * The session's side of the transfer.
     *
     * @param buffers    the two staging buffers, each at least {@code chunk} bytes; {@code buffers[0]} holds
     *                   the first chunk when {@code headStaged}
     * @param chunk      bytes per chunk (the staging pool's largest buffer)
     * @param size       bytes of the whole range
     * @param rangeStart where the range starts, in the source's coordinates (PREPARE's offset)
     * @param stagedEtag the etag staged at PREPARE; every chunk must come from that version
     */
    record Plan(ScatterGatherEntry[] buffers, int chunk, long size, long rangeStart, boolean headStaged,
                String stagedEtag) {
    }

    private ChunkedGetPhase() {
    }

    static DataPhaseResult run(Channel channel, EndpointInfo remote, Plan plan, StagingSource source,
                               RemoteRegion client, int cookie, LongSupplier wrIds, long execTimeoutMs,
                               DialPacing pacing) {
        Duration timeout = Duration.ofMillis(execTimeoutMs);
        int chunks = (int) ((plan.size() + plan.chunk() - 1) / plan.chunk());
        if (!plan.headStaged()) {
            // a retried READY after Busy: the first buffer was overwritten by the previous attempt
            DataPhaseResult refill = fill(plan, source, 0, plan.buffers()[0]);
            if (refill != null) {
                return refill;
            }
        }
        DataPhaseResult refused = DataPhase.connect(channel, remote, pacing);
        if (refused != null) {
            return refused;
        }
        CompletableFuture<BatchResult> previous = null;
        long previousWrId = 0;
        long previousBytes = 0;
        for (int i = 0; i < chunks; i++) {
            long offset = (long) i * plan.chunk();
            int n = (int) Math.min(plan.chunk(), plan.size() - offset);
            ScatterGatherEntry buffer = plan.buffers()[i & 1];
            ScatterGatherEntry local = new ScatterGatherEntry(buffer.region(), buffer.offset(), n);
            long wrId = wrIds.getAsLong();
            long at = client.address() + offset;
            WorkRequest write = i == chunks - 1
                    ? WorkRequest.writeWithImm(wrId, local, at, client.rkey(), cookie)
                    : WorkRequest.write(wrId, local, at, client.rkey());
            CompletableFuture<BatchResult> moving = channel.submit(List.of(write), timeout);
            if (previous != null) {
                // chunk i-1's buffer is the one chunk i+1 goes into: it must have left first
                DataPhaseResult r = DataPhase.classifyGet(DataPhase.await(previous, execTimeoutMs), previousWrId,
                        previousBytes);
                if (r.outcome() != ReadyOutcome.OK) {
                    return withChunk(r, i - 1, chunks);
                }
            }
            if (i + 1 < chunks) {
                DataPhaseResult refill = fill(plan, source, (long) (i + 1) * plan.chunk(), plan.buffers()[(i + 1) & 1]);
                if (refill != null) {
                    return refill;
                }
            }
            previous = moving;
            previousWrId = wrId;
            previousBytes = n;
        }
        DataPhaseResult last = DataPhase.classifyGet(DataPhase.await(previous, execTimeoutMs), previousWrId,
                previousBytes);
        return last.outcome() == ReadyOutcome.OK ? DataPhaseResult.ok(plan.size()) : withChunk(last, chunks - 1, chunks);
    }

    /** Reads the chunk at {@code offset} into {@code buffer}; null when it is there, else the failure. */
    private static DataPhaseResult fill(Plan plan, StagingSource source, long offset, ScatterGatherEntry buffer) {
        int n = (int) Math.min(plan.chunk(), plan.size() - offset);
        String etag;
        try {
            etag = source.fill(plan.rangeStart() + offset, buffer.region().segment().asSlice(buffer.offset(), n));
        } catch (Exception e) {
            return DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "staging the " + n + " bytes at " + offset
                    + " failed: " + e);
        }
        if (!plan.stagedEtag().equals(etag)) {
            return DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "the object changed since PREPARE: etag " + etag
                    + " at " + offset + ", staged " + plan.stagedEtag());
        }
        return null;
    }

    private static DataPhaseResult withChunk(DataPhaseResult r, int chunk, int chunks) {
        return DataPhaseResult.of(r.outcome(), "chunk " + (chunk + 1) + " of " + chunks + ": " + r.detail());
    }
}
