package org.objrdma.store.fs.internal;

import java.util.concurrent.ConcurrentSkipListMap;
import org.objrdma.api.store.PartInfo;

/**
 * One multipart upload in the engine's index. Part commits, completion and abort hold this object's
 * monitor (then, for completion, the bucket's), so a part cannot change under a completion.
 */
final class UploadState {
    final UploadRecord record;
    final ConcurrentSkipListMap<Integer, PartInfo> parts = new ConcurrentSkipListMap<>();
    /** Guarded by this: completed or aborted. */
    boolean finished;

    UploadState(UploadRecord record) {
        this.record = record;
    }

    String key() {
        return record.info().key();
    }
}
