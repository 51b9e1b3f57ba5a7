package org.objrdma.store.fs;

import org.objrdma.api.store.ObjectStore;

/** An embedded {@link ObjectStore} made by {@link EmbeddedStores}; closing it releases its root. */
public interface EmbeddedStore extends ObjectStore, AutoCloseable {
    @Override
    void close();
}
