package org.objrdma.store.fs.internal;

import java.nio.file.Path;
import java.util.Map;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * The process {@link FsKillTest} kills: opens the store on {@code args[0]} and overwrites key {@code obj} of
 * bucket {@code kill-test} with {@code SeededBytes(args[1], args[2])}, printing its progress on stdout.
 */
public final class FsKillChild {
    static final Map<String, String> USERS = Map.of("KILLTEST", "kill-test-secret");
    static final String BUCKET = "kill-test";
    static final String KEY = "obj";

    private FsKillChild() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        long size = Long.parseLong(args[2]);
        try (EmbeddedStore store = EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, true)) {
            try {
                store.createBucket("KILLTEST", BUCKET);
            } catch (StoreException e) {
                if (e.error() != StoreError.BUCKET_ALREADY_OWNED_BY_YOU) {
                    throw e;
                }
            }
            System.out.println("READY");
            System.out.flush();
            long step = 8L << 20;
            long[] next = {step};
            SeededBytes body = new SeededBytes(seed, size, position -> {
                if (position >= next[0] || position == size) {
                    System.out.println("AT " + position);
                    System.out.flush();
                    next[0] = position + step;
                }
            });
            String etag = store.put(BUCKET, KEY, body, size, PutOptions.DEFAULT).etag();
            System.out.println("DONE " + etag);
            System.out.flush();
        }
    }
}
