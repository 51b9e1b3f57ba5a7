package org.objrdma.store.s3.internal;

import java.time.Clock;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.CompletedUpload;
import org.objrdma.api.store.PutResult;

/**
 * The completions a retried CompleteMultipartUpload is answered from, in this adapter's memory (the
 * remote forgets an upload once it completes it, so a retry would be NoSuchUpload): kept
 * {@link CompletedUpload#RETENTION} (and at most {@link #MAX_RECORDS}, oldest dropped first). A restart
 * forgets them, and another gateway on the same remote does not see them: a repeat there is NoSuchUpload.
 */
final class CompletionRecords {
    static final int MAX_RECORDS = 10_000;

    private final Clock clock;
    /** bucket + '/' + upload id, in completion order. */
    private final LinkedHashMap<String, CompletedUpload> records = new LinkedHashMap<>();

    CompletionRecords(Clock clock) {
        this.clock = clock;
    }

    synchronized void add(String bucket, String key, String uploadId, List<CompletedPart> parts, PutResult result) {
        expire();
        records.put(bucket + '/' + uploadId, new CompletedUpload(key, uploadId, parts, result, clock.instant()));
        while (records.size() > MAX_RECORDS) {
            records.remove(records.keySet().iterator().next());
        }
    }

    /** The completion of {@code uploadId} into {@code key}, while it is remembered. */
    synchronized Optional<CompletedUpload> find(String bucket, String key, String uploadId) {
        expire();
        CompletedUpload r = uploadId == null ? null : records.get(bucket + '/' + uploadId);
        return r != null && r.key().equals(key) ? Optional.of(r) : Optional.empty();
    }

    private void expire() {
        for (Iterator<Map.Entry<String, CompletedUpload>> it = records.entrySet().iterator(); it.hasNext();) {
            if (it.next().getValue().current(clock.instant())) {
                break; // in completion order: the rest are newer
            }
            it.remove();
        }
    }
}
