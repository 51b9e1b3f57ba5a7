package org.objrdma.store.fs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.internal.StoreEngine;

/** Makes embedded stores outside OSGi (tests, tools); one instance per root at a time. */
public final class EmbeddedStores {
    private EmbeddedStores() {
    }

    /**
     * A store on the heap: nothing touches the disk, nothing survives {@link EmbeddedStore#close()}.
     *
     * @param credentials access key id → secret
     */
    public static EmbeddedStore inMemory(Map<String, String> credentials) {
        return StoreEngine.inMemory(credentials, Integer.MAX_VALUE - 16, StoreLimits.MIN_PART_SIZE);
    }

    /**
     * The file store on {@code root} (created if missing), loading what it holds and removing leftovers
     * of interrupted writes.
     *
     * @param fsync false skips every fsync: faster, and a power loss may then lose or tear recent writes
     * @throws IOException if the root cannot be used or another store holds it
     */
    public static EmbeddedStore filesystem(Path root, Map<String, String> credentials, long maxObjectSize,
            boolean fsync) throws IOException {
        return StoreEngine.filesystem(root, credentials, maxObjectSize, fsync, StoreLimits.MIN_PART_SIZE);
    }
}
