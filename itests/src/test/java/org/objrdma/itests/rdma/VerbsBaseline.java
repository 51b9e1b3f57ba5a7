package org.objrdma.itests.rdma;

import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.itests.rdma.RdmaChild.Answer;

/**
 * Karaf's objects on the software verbs device (queue pairs, memory windows, registrations) and the staging pool's
 * idle buffers, taken before a test, and the leak audit against them after it, in Karaf and in the client JVM.
 */
public final class VerbsBaseline {

    /** How the IT waits for a condition ({@code ObjRdmaTestSupport.await}). */
    @FunctionalInterface
    public interface Await {
        void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException;
    }

    private final SoftVerbsObjects device;
    private final Supplier<StagingPool> pool;
    private final int qps;
    private final int mws;
    private final int mrs;
    private final long idle;

    private VerbsBaseline(SoftVerbsObjects device, Supplier<StagingPool> pool) {
        this.device = device;
        this.pool = pool;
        this.qps = device.live(SoftVerbsObjects.QPS);
        this.mws = device.live(SoftVerbsObjects.MWS);
        this.mrs = device.live(SoftVerbsObjects.MRS);
        this.idle = pool.get().stats().idle();
    }

    /** The baseline now (call it once staging is quiet). */
    public static VerbsBaseline take(SoftVerbsObjects device, Supplier<StagingPool> pool) {
        return new VerbsBaseline(device, pool);
    }

    public int qps() {
        return qps;
    }

    /**
     * Karaf's queue pairs and memory windows back to the baseline ({@code qpsAtMost}: at most the baseline, when a
     * queue pair Karaf held at the baseline is not the test's and may have gone since), its registrations at most
     * the baseline plus the staging buffers pooled since (each idle buffer holds one), and, with a client, the
     * client's objects back to {@code clientBefore}.
     */
    public void audit(RdmaChild client, Answer clientBefore, Duration timeout, Await await, boolean qpsAtMost)
            throws InterruptedException {
        await.await("Karaf's queue pairs back to " + qps + " (" + device.describe() + ")", timeout, () -> qpsAtMost
                ? device.live(SoftVerbsObjects.QPS) <= qps : device.live(SoftVerbsObjects.QPS) == qps);
        await.await("Karaf's memory windows back to " + mws + " (" + device.describe() + ")", timeout,
                () -> device.live(SoftVerbsObjects.MWS) == mws);
        long pooledSince = pool.get().stats().idle() - idle;
        int now = device.live(SoftVerbsObjects.MRS);
        assertTrue("Karaf's registrations: " + now + ", baseline " + mrs + " + " + pooledSince + " pooled",
                now <= mrs + Math.max(0, pooledSince));
        if (client == null) {
            return;
        }
        await.await("the client's objects back to " + clientBefore.line(), timeout, () -> {
            try {
                return client.call("verbsobjects").line().equals(clientBefore.line());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }
}
