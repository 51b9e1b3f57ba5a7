package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.StoreException;
import org.objrdma.cuobj.CuObj;
import org.objrdma.wire.Errno;

/**
 * One cuObject transfer through the staging pool: two staging buffers made usable on a {@link ChunkLane} (the
 * facade, or an RC connection's queue pair), the object
 * moved in chunks of at most {@code chunk} bytes, the next chunk staged (GET: read from the store straight into
 * the buffer, both buffers' writes in flight; PUT: handed to the store) while the previous one moves. Owns its leases and its lane and closes them
 * in {@link #close()} (reverse order, idempotent), after any transfer still moving has ended.
 */
final class CuObjPipeline implements AutoCloseable {

    /** The facade's calls block until their completion; one virtual thread per moving chunk. */
    private static final ExecutorService MOVERS = Executors.newVirtualThreadPerTaskExecutor();

    /** An object is split into at least this many chunks, so staging one overlaps moving the one before. */
    static final int MIN_CHUNKS = 4;
    /**
     * ...but no chunk is smaller than this: measured, 256 KiB chunks made a 1 MiB GET slower than one chunk (each
     * chunk's WRITE, completion and mover thread cost more than they overlap), 1 MiB chunks made 4 MiB faster.
     */
    static final int MIN_CHUNK = 1 << 20;

    /** The facade refused or the transfer failed; {@code moved} bytes had moved before. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int errno;
        final int wcStatus;
        final long moved;

        Failure(int errno, int wcStatus, long moved) {
            super("cuObject transfer failed: -errno " + errno + ", completion status " + wcStatus + " after " + moved
                    + " bytes");
            this.errno = errno;
            this.wcStatus = wcStatus;
            this.moved = moved;
        }

        /** Refusals that say this path cannot serve the descriptor at all: the client should use HTTP. */
        boolean declinable() {
            return moved == 0 && (errno == Errno.EAFNOSUPPORT || errno == Errno.ENODEV);
        }
    }

    /** The pipeline could not be set up; the request is declined ({@code reason}) or answered {@code 503}. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean busy;

        Unavailable(String reason, boolean busy) {
            super(reason);
            this.busy = busy;
        }
    }

    private final ChunkLane lane;
    private final long length;
    private final int chunk;
    private final StagingLease[] leases = new StagingLease[2];
    /** PUT: the chunk being read from the client. */
    private CompletableFuture<Long> moving;
    /** GET: the chunks being written to the client, oldest first. */
    private final ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>(2);
    private boolean closed;

    private CuObjPipeline(ChunkLane lane, long length, int chunk) {
        this.lane = lane;
        this.length = length;
        this.chunk = chunk;
    }

    /**
     * A pipeline over {@code lane}, which it owns from here on (closed with it, also when this fails). Staging is
     * borrowed through the lane (the facade's lane charges the request principal).
     */
    static CuObjPipeline open(ChunkLane lane, StagingPool pool, long length, long chunkBytes) throws Unavailable {
        int chunk = chunkFor(length, Math.min(chunkBytes, Math.min(pool.maxBufferSize(), CuObj.MAX_TRANSFER_SIZE)));
        CuObjPipeline p = new CuObjPipeline(lane, length, chunk);
        try {
            int count = length > chunk ? 2 : 1;
            for (int i = 0; i < count; i++) {
                p.leases[i] = lane.borrow(pool, chunk);
                lane.attach(i, p.leases[i]);
            }
            return p;
        } catch (StagingException e) {
            p.close();
            boolean busy = e.status() == StagingStatus.LIMIT;
            throw new Unavailable("staging: " + e.getMessage(), busy);
        } catch (Unavailable | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    long length() {
        return length;
    }

    /**
     * The chunk size of a transfer of {@code length} bytes with at most {@code maxChunk} per chunk. One chunk
     * serializes the whole transfer (GET: the store fills the buffer, then the wire moves it, then its completion
     * comes back; PUT: the reverse) where plain HTTP streams store and socket side by side; that made a 4 MiB
     * cuObject GET with the default 8 MiB {@code rdma.chunk.bytes} slower than plain HTTP (docs/bench/profile.md).
     * So an object smaller than {@link #MIN_CHUNKS} full chunks is cut into {@link #MIN_CHUNKS} (each at least
     * {@link #MIN_CHUNK}, the last shorter); larger objects keep {@code maxChunk}. Staging memory only shrinks.
     */
    static int chunkFor(long length, long maxChunk) {
        long quarter = (length + MIN_CHUNKS - 1) / MIN_CHUNKS;
        long chunk = Math.min(maxChunk, Math.max(quarter, MIN_CHUNK));
        return (int) Math.max(1, Math.min(chunk, length));
    }

    /**
     * GET: reads {@code length} bytes of {@code content} from {@code offset} straight into the staging buffers
     * (the store fills the registered segment itself: no heap copy between the store and the wire) and writes
     * them into the client memory. Both buffers' writes may be in flight at once (they queue on the one agent
     * connection in order), so the wire does not idle between chunks while the finished one's completion
     * travels back and the next one is staged; a buffer is refilled once its own write has completed.
     */
    long sendFrom(ObjectContent content, long offset) throws StoreException, IOException, Failure {
        int slots = leases[1] == null ? 1 : 2;
        long done = 0;
        long confirmed = 0;
        for (int i = 0; done < length; i++) {
            int slot = i % slots;
            if (inFlight.size() == slots) {
                confirmed += awaitOldest(confirmed); // the write that used this slot
            }
            int n = (int) Math.min(chunk, length - done);
            fill(content, offset + done, leases[slot].segment().asSlice(0, n));
            inFlight.add(move(true, slot, done, n));
            done += n;
        }
        while (!inFlight.isEmpty()) {
            confirmed += awaitOldest(confirmed);
        }
        return confirmed;
    }

    private long awaitOldest(long movedBefore) throws Failure {
        return check(inFlight.poll().join(), movedBefore);
    }

    private static void fill(ObjectContent content, long offset, MemorySegment dst) throws StoreException, IOException {
        long at = 0;
        while (at < dst.byteSize()) {
            long r = content.read(offset + at, dst.asSlice(at));
            if (r <= 0) {
                throw new IOException("the object ended " + (dst.byteSize() - at) + " bytes early");
            }
            at += r;
        }
    }

    private CompletableFuture<Long> move(boolean get, int slot, long at, int n) {
        return CompletableFuture.supplyAsync(() -> {
            int[] status = new int[1];
            long r = lane.move(get, slot, at, n, status);
            // the status rides in the upper half of a failure so one future carries both
            return r >= 0 ? r : (r & 0xFFFF_FFFFL) | ((long) status[0] << 32) | Long.MIN_VALUE;
        }, MOVERS);
    }

    private long await(long movedBefore) throws Failure {
        long r = moving.join();
        moving = null;
        return check(r, movedBefore);
    }

    private static long check(long r, long movedBefore) throws Failure {
        if (r < 0) {
            int errno = -(int) r;
            int status = (int) ((r & Long.MAX_VALUE) >>> 32);
            throw new Failure(errno, status, movedBefore);
        }
        return r;
    }

    /**
     * PUT: the client memory as a stream the store reads; the next chunk is read from the client while the
     * store consumes the previous one. A failed transfer surfaces as an {@link IOException} before the end of
     * the stream, so the store commits nothing; {@link #failure()} then says what failed.
     */
    InputStream receiver() {
        return new Receiver();
    }

    private Failure failure;

    Failure failure() {
        return failure;
    }

    private final class Receiver extends InputStream {
        private long requested;
        private long delivered;
        private int slot = 1;
        private int pos;
        private int limit;

        Receiver() {
            fetchNext();
        }

        private void fetchNext() {
            if (requested < length) {
                int n = (int) Math.min(chunk, length - requested);
                moving = move(false, (slot + 1) & 1, requested, n);
                requested += n;
            }
        }

        private boolean advance() throws IOException {
            if (moving == null) {
                return false;
            }
            long n;
            try {
                n = await(delivered);
            } catch (Failure f) {
                failure = f;
                throw new IOException(f.getMessage(), f);
            }
            slot = (slot + 1) & 1;
            pos = 0;
            limit = (int) n;
            // the other slot's bytes were consumed: it takes the next chunk while this one is read
            fetchNext();
            return true;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (pos == limit) {
                if (!advance()) {
                    return -1;
                }
            }
            int n = Math.min(len, limit - pos);
            MemorySegment.copy(leases[slot].segment(), ValueLayout.JAVA_BYTE, pos, b, off, n);
            pos += n;
            delivered += n;
            return n;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // the facade still uses the buffers: let every transfer finish before the buffers go back
        for (CompletableFuture<Long> f; (f = inFlight.poll()) != null; ) {
            f.join();
        }
        if (moving != null) {
            moving.join();
            moving = null;
        }
        lane.close();
        for (int i = 1; i >= 0; i--) {
            if (leases[i] != null) {
                leases[i].release();
            }
        }
    }
}
