package org.objrdma.store.fs.internal;

import java.util.Map;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.store.tck.ObjectStoreContractTest;

/** The in-memory store against the whole contract suite; nothing touches the disk. */
class MemoryStoreContractTest extends ObjectStoreContractTest {
    @Override
    protected ObjectStore createStore(Map<String, String> credentials) {
        return EmbeddedStores.inMemory(credentials);
    }

    @Override
    protected void closeStore(ObjectStore store) {
        ((EmbeddedStore) store).close();
    }
}
