package org.objrdma.s3;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreException;
import org.objrdma.store.fs.EmbeddedStore;

/** Test fixture: a multipart object written straight into a store, one part per byte array. */
final class StoredMultipart {
    private StoredMultipart() {
    }

    static void put(EmbeddedStore store, String bucket, String key, byte[]... parts)
            throws StoreException, java.io.IOException {
        String id = store.createMultipartUpload(bucket, key, ObjectAttributes.NONE, null).uploadId();
        List<CompletedPart> done = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            done.add(new CompletedPart(i + 1, store.uploadPart(bucket, key, id, i + 1,
                    new ByteArrayInputStream(parts[i]), parts[i].length, PutOptions.DEFAULT).etag()));
        }
        store.completeMultipartUpload(bucket, key, id, done);
    }
}
