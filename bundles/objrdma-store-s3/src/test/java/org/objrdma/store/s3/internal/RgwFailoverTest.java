package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.PutOptions;

/**
 * The adapter over both RGWs of a real Ceph ({@code scripts/ceph.sh}): the preferred RGW is SIGKILLed, every
 * following call succeeds through the other within the configured timeouts, what was written before and after
 * reads back byte-exact; the killed RGW is started again afterwards (also when the test fails).
 */
@ExtendWith(CephCluster.Resolver.class)
class RgwFailoverTest {
    private static final Map<String, String> USERS = Map.of("ALICEKEY", "alice-secret-1234");

    @Test
    void aKilledRgwIsLeftForTheOtherAndNothingIsLost(CephCluster cluster) throws Exception {
        List<URI> rgws = cluster.endpoints();
        org.junit.jupiter.api.Assumptions.assumeTrue(rgws.size() >= 2, "needs two RGWs, the cluster has " + rgws);
        Map<String, Object> p = cluster.config("fo" + System.currentTimeMillis() % 100_000 + "-", USERS);
        // the second RGW (client.rgw.b) first: it is the one killed
        p.put("endpoint", rgws.get(1) + "," + rgws.get(0));
        p.put("max.retries", 1);
        p.put("connect.timeout.ms", 2000);
        p.put("read.timeout.ms", 20000);
        S3ObjectStore store = S3ObjectStore.open(p);
        try {
            store.createBucket("ALICEKEY", "bucket");
            byte[] before = new byte[3 * 1024 * 1024];
            new Random(1).nextBytes(before);
            store.put("bucket", "before", new ByteArrayInputStream(before), before.length, PutOptions.DEFAULT);

            cluster.kill("client.rgw.b");
            long t0 = System.nanoTime();
            assertArrayEquals(before, EndpointFailoverTest.get(store, "bucket", "before"));
            byte[] after = new byte[70 * 1024 * 1024]; // above multipart.threshold: the multipart path fails over too
            new Random(2).nextBytes(after);
            store.put("bucket", "after", new ByteArrayInputStream(after), after.length, PutOptions.DEFAULT);
            assertArrayEquals(after, EndpointFailoverTest.get(store, "bucket", "after"));
            store.head("bucket", "before", Conditions.NONE);
            assertTrue(System.nanoTime() - t0 < 60_000_000_000L, "bounded by the timeouts");
            store.delete("bucket", "after");
        } finally {
            store.close();
            cluster.startMissing();
        }
    }
}
