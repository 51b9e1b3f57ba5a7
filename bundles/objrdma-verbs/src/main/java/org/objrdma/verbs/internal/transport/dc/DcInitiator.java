package org.objrdma.verbs.internal.transport.dc;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.verbs.internal.ffi.Mlx5DvConstants;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;

/**
 * The server side of cuObject over DC: a pool of DC initiators ({@code numDcis}, as NVIDIA's server keeps one per
 * channel) on one device, and the address handles of the clients they reach. Each {@link #transfer} takes a DCI,
 * posts one RDMA WRITE (GET: staging → client) or READ (PUT: client → staging) to the DC target a descriptor names,
 * with the DC key given for that request, and waits for the DCI's completion.
 *
 * <p>Grants stay per request: the client's memory is reached only with the rkey its descriptor carries and only
 * inside the region the descriptor describes (checked here before posting; the client's NIC checks it again);
 * the server's side is a local range of a region registered for local access only ({@code lkey}).
 *
 * <p>Thread safety: {@link #transfer} may be called from many threads; at most {@code numDcis} run at once, the
 * others wait for a DCI until their deadline.
 */
public final class DcInitiator implements AutoCloseable {

    /** Most DCIs one initiator keeps: each is a queue pair and a CQ on the NIC. */
    public static final int MAX_DCIS = 256;
    /** Address handles kept for reuse (one per client port seen recently). */
    static final int ADDRESS_HANDLE_CACHE = 256;

    /** What a transfer ended with. */
    public enum Outcome {
        /** The bytes moved. */
        DONE,
        /** The target refused it: wrong DC key, wrong rkey, outside its region (REM_ACCESS_ERR and kin). */
        REFUSED,
        /** The target did not answer in time (retries exhausted, or the deadline passed). */
        UNREACHABLE,
        /** No DCI became free before the deadline. */
        BUSY
    }

    /** The outcome and the {@code ibv_wc_status} behind it (-1 when none). */
    public record Result(Outcome outcome, int wcStatus) {
    }

    private final BlockingQueue<Dci> idle;
    private final List<Dci> all;
    private final DcAddressHandles handles;
    private final AtomicInteger broken = new AtomicInteger();

    private DcInitiator(List<Dci> dcis, DcAddressHandles handles) {
        this.all = List.copyOf(dcis);
        this.idle = new ArrayBlockingQueue<>(dcis.size(), false, dcis);
        this.handles = handles;
    }

    /**
     * Creates {@code numDcis} DCIs on {@code ctx}/{@code pd} at {@code port}.
     *
     * @throws IllegalArgumentException if {@code numDcis} is not 1..{@value #MAX_DCIS}
     * @throws VerbsException if the device refuses a DC object (everything created so far is destroyed)
     */
    public static DcInitiator open(VerbsLibrary library, Mlx5DvLibrary mlx5, MemorySegment ctx, MemorySegment pd,
            DcPort port, int numDcis, int maxSge) throws VerbsException {
        Objects.requireNonNull(port, "port");
        validateNumDcis(numDcis);
        List<Dci> dcis = new ArrayList<>(numDcis);
        try {
            for (int i = 0; i < numDcis; i++) {
                dcis.add(Dci.open(library, mlx5, ctx, pd, port, maxSge));
            }
        } catch (VerbsException | RuntimeException e) {
            dcis.forEach(Dci::close);
            throw e;
        }
        return new DcInitiator(dcis, new DcAddressHandles(mlx5, pd, port, ADDRESS_HANDLE_CACHE));
    }

    /** @throws IllegalArgumentException naming the bound */
    public static void validateNumDcis(int numDcis) {
        if (numDcis < 1 || numDcis > MAX_DCIS) {
            throw new IllegalArgumentException("numDcis must be 1.." + MAX_DCIS + ", was " + numDcis);
        }
    }

    /**
     * Moves {@code length} bytes between the local range {@code [localAddress, +length)} (registered with
     * {@code lkey}) and {@code [remoteAddress, +length)} of {@code target}: {@code write} = local → target.
     *
     * @throws IllegalArgumentException if the remote range is not inside the target's region, or a length is
     *         negative or above 2^31 - 1 (nothing is posted)
     * @throws VerbsException if the request could not be posted or an address handle not created
     */
    public Result transfer(DcTargetAddress target, long dcKey, boolean write, long remoteAddress, int lkey,
            long localAddress, long length, Duration timeout) throws VerbsException, InterruptedException {
        Objects.requireNonNull(target, "target");
        if (length < 0 || length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one DC request moves 0..2^31 - 1 bytes, was " + length);
        }
        if (!target.covers(remoteAddress, length)) {
            throw new IllegalArgumentException(String.format("remote range [0x%x, +%d) is outside the target's"
                    + " region [0x%x, +%d)", remoteAddress, length, target.regionAddress(), target.regionSize()));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Dci dci = idle.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (dci == null) {
            return new Result(Outcome.BUSY, -1);
        }
        boolean healthy = true;
        DcAddressHandles.Lease ah = null;
        try {
            ah = handles.acquire(target.peer());
            int status = dci.execute(ah.ah(), target, dcKey, write, remoteAddress, lkey, localAddress, (int) length,
                    deadline);
            healthy = Dci.isSuccess(status);
            return new Result(classify(status), status);
        } catch (VerbsException | RuntimeException e) {
            healthy = false;
            throw e;
        } finally {
            if (ah != null) {
                handles.release(ah);
            }
            if (!healthy && dci.recover() != 0) {
                // a DCI that cannot be brought back is not returned (the pool is one smaller); close destroys it
                broken.incrementAndGet();
            } else {
                idle.add(dci);
            }
        }
    }

    static Outcome classify(int status) {
        return switch (status) {
            case 0 -> Outcome.DONE;
            case -1, Mlx5DvConstants.IBV_WC_RETRY_EXC_ERR, Mlx5DvConstants.IBV_WC_RNR_RETRY_EXC_ERR ->
                    Outcome.UNREACHABLE;
            default -> Outcome.REFUSED;
        };
    }

    /** Forgets the address handle of a client that went away (its next request makes a new one). */
    public void forget(DcPeer peer) {
        handles.forget(peer);
    }

    /** Counts of the DC objects held now: for operators and for tests that check a return to baseline. */
    public record Resources(int dcis, int idleDcis, int brokenDcis, int addressHandles) {
    }

    public Resources resources() {
        return new Resources(all.size(), idle.size(), broken.get(), handles.live());
    }

    /** Destroys the DCIs and address handles; call when no transfer runs. */
    @Override
    public void close() {
        handles.close();
        all.forEach(Dci::close);
    }
}
