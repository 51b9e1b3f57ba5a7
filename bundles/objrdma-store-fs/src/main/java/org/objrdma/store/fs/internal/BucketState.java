package org.objrdma.store.fs.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ObjectSummary;

/**
 * The engine's index of one bucket. Changes to the backend and to the index happen together while
 * holding this object's monitor, so the index always names what the backend holds; readers of the maps
 * take no lock.
 */
final class BucketState {
    /** Replaced (under this object's monitor) when the bucket's ACL changes; read without a lock. */
    volatile BucketInfo info;
    final ConcurrentSkipListMap<Utf8Key, ObjectSummary> objects = new ConcurrentSkipListMap<>();
    final ConcurrentHashMap<String, UploadState> uploads = new ConcurrentHashMap<>();
    /** Guarded by this: set once the bucket is deleted; commits into it then fail with NoSuchBucket. */
    boolean deleted;

    BucketState(BucketInfo info) {
        this.info = info;
    }

    String name() {
        return info.name();
    }
}
