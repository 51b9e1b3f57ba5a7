package org.objrdma.api.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a store remembers of a multipart upload it completed, so that a CompleteMultipartUpload repeated
 * with the same upload id (an SDK retrying a request whose response was lost) is answered as S3 answers
 * it: 200 with the same result when the same parts are named, InvalidPart when others are. A store keeps
 * the record for at least {@link #RETENTION} after the completion.
 *
 * @param key       the object the upload completed into
 * @param uploadId  the upload
 * @param parts     the parts the completing request named, in its order
 * @param result    what the completion answered
 * @param completed when it completed
 * @since 2.2
 */
public record CompletedUpload(String key, String uploadId, List<CompletedPart> parts, PutResult result,
        Instant completed) {
    /** How long a completion is remembered: longer than any SDK's retry schedule. */
    public static final Duration RETENTION = Duration.ofHours(1);

    public CompletedUpload {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(uploadId, "uploadId");
        parts = List.copyOf(parts);
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(completed, "completed");
    }

    /** True while the record must still answer a repeat, at {@code now}. */
    public boolean current(Instant now) {
        return now.isBefore(completed.plus(RETENTION));
    }

    /**
     * The answer to a repeated CompleteMultipartUpload naming {@code requested}: the first result when the
     * part numbers and ETags are the same (quotes and checksum elements aside), else InvalidPart.
     *
     * @throws StoreException INVALID_PART when the repeat names other parts
     */
    public PutResult repeat(List<CompletedPart> requested) throws StoreException {
        boolean same = requested.size() == parts.size();
        for (int i = 0; same && i < parts.size(); i++) {
            CompletedPart a = parts.get(i);
            CompletedPart b = requested.get(i);
            same = a.partNumber() == b.partNumber()
                    && Conditions.unquote(a.etag()).equals(Conditions.unquote(b.etag()));
        }
        if (!same) {
            throw new StoreException(StoreError.INVALID_PART, "the upload " + uploadId
                    + " was already completed with other parts; a repeated completion must name the same parts");
        }
        return result;
    }
}
