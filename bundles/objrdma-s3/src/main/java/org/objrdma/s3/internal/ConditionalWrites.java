package org.objrdma.s3.internal;

import org.objrdma.api.store.WriteCondition;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * S3's conditional writes on PutObject: {@code If-None-Match: *} (create only) and {@code If-Match: <etag>}
 * (replace only that version). The store checks them atomically with its commit; a failed condition is
 * 412 PreconditionFailed and stores nothing. What S3 does not offer is refused rather than ignored:
 * If-None-Match with an ETag, and any condition on a store that cannot keep it atomically. The date
 * conditions have no meaning on a write and are ignored, as S3 ignores them.
 */
final class ConditionalWrites {

    private ConditionalWrites() {
    }

    static WriteCondition of(Exchange x) throws S3Exception {
        String ifMatch = x.header("If-Match");
        String ifNoneMatch = x.header("If-None-Match");
        if (ifNoneMatch != null && !ifNoneMatch.strip().equals("*")) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "If-None-Match on a write only supports '*'");
        }
        if (ifMatch != null && ifMatch.isBlank()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "If-Match needs an ETag");
        }
        WriteCondition condition = new WriteCondition(ifMatch == null ? null : ifMatch.strip(), ifNoneMatch != null);
        if (!condition.isNone() && !x.store.supportsConditionalWrites()) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
                    "Conditional writes are not supported by the object store " + x.store.name());
        }
        return condition;
    }
}
