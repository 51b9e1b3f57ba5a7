package org.objrdma.store.fs.internal;

import java.util.Objects;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.UploadInfo;

/** A multipart upload as persisted: what CreateMultipartUpload was told. */
record UploadRecord(UploadInfo info, ObjectAttributes attributes) {
    UploadRecord {
        Objects.requireNonNull(info, "info");
        Objects.requireNonNull(attributes, "attributes");
    }
}
