package org.objrdma.store.s3.internal;

import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.store.tck.ObjectStoreContractTest;

/**
 * The S3 adapter against the whole store contract suite with Ceph's RADOS Gateway (Debian's 16.2, the cluster of
 * {@code scripts/ceph.sh}) as the remote, configured with both RGW endpoints. Skipped, saying why, when no cluster
 * runs ({@link CephCluster}); {@code -Pceph} starts one. Each test gets a fresh bucket prefix and system bucket.
 */
@ExtendWith({CephCluster.Resolver.class, RgwContractGaps.class})
class RgwStoreContractTest extends ObjectStoreContractTest {
    private static CephCluster cluster;
    private static final String RUN = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    private static int generation;

    @BeforeAll
    static void cluster(CephCluster running) {
        cluster = running;
    }

    @Override
    protected ObjectStore createStore(Map<String, String> credentials) throws Exception {
        return S3ObjectStore.open(cluster.config("r" + RUN + "-" + (++generation) + "-", credentials));
    }

    @Override
    protected void closeStore(ObjectStore store) {
        ((S3ObjectStore) store).close();
    }
}
