package org.objrdma.benchmarks;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PutOptions;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * The fs store's Java API in this JVM, no HTTP: what the gateway costs on top of it. Puts stream the body and
 * compute a CRC32 as the gateway does for the SDK's default trailer; fsync as configured (the distribution's
 * default is on).
 */
final class RawStore implements BenchTarget {

    private static final String BUCKET = "bench";
    private static final PutOptions OPTIONS = PutOptions.DEFAULT.withChecksums(Set.of(ChecksumAlgorithm.CRC32));

    private final EmbeddedStore store;
    private final boolean fsync;

    RawStore(Path root, boolean fsync) throws Exception {
        this.fsync = fsync;
        store = EmbeddedStores.filesystem(root, Map.of("bench", "bench-secret"), Long.MAX_VALUE, fsync);
        store.createBucket("bench", BUCKET);
    }

    @Override
    public String name() {
        return "raw store (fsync " + (fsync ? "on" : "off") + ")";
    }

    @Override
    public void put(String key, byte[] data) throws Exception {
        try (InputStream body = new ByteArrayInputStream(data)) {
            store.put(BUCKET, key, body, data.length, OPTIONS);
        }
    }

    @Override
    public long get(String key, byte[] buffer) throws Exception {
        long total = 0;
        try (ObjectContent content = store.open(BUCKET, key, Conditions.NONE); InputStream in = content.stream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                total += n;
            }
        }
        return total;
    }

    @Override
    public void close() throws Exception {
        store.close();
    }
}
