package org.objrdma.store.fs.internal;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.store.tck.ObjectStoreContractTest;

/** The file store (fsync on) against the whole contract suite, on a fresh root per test. */
class FsStoreContractTest extends ObjectStoreContractTest {
    @TempDir
    Path root;

    @Override
    protected ObjectStore createStore(Map<String, String> credentials) throws Exception {
        return EmbeddedStores.filesystem(root.resolve("store"), credentials, StoreLimits.MAX_OBJECT_SIZE, true);
    }

    @Override
    protected void closeStore(ObjectStore store) {
        ((EmbeddedStore) store).close();
    }
}
