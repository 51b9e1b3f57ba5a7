package org.objrdma.api.store;

import java.time.Clock;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link CompletedUpload} records a store answers a repeated CompleteMultipartUpload from, in the store's
 * memory: kept {@link CompletedUpload#RETENTION} (and at most {@link #MAX_RECORDS}, oldest dropped first). A
 * restart forgets them; a repeat after that is NoSuchUpload. Thread-safe. For stores that keep no durable record
 * of a completion (the embedded store, the S3 adapter, whose remote forgets an upload once it completes it); here
 * because it is the contract of {@link CompletedUpload} written once, beside it.
 *
 * @since 2.3
 */
public final class CompletionRecords {
    /** The most records kept at once. */
    public static final int MAX_RECORDS = 10_000;

    private final Clock clock;
    /** bucket + '/' + upload id, in completion order. */
    private final LinkedHashMap<String, CompletedUpload> records = new LinkedHashMap<>();

    /** @param clock what ages the records */
    public CompletionRecords(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Remembers that {@code uploadId} in {@code bucket} completed into {@code key} with {@code parts}. */
    public synchronized void add(String bucket, String key, String uploadId, List<CompletedPart> parts,
            PutResult result) {
        expire();
        records.put(bucket + '/' + uploadId, new CompletedUpload(key, uploadId, parts, result, clock.instant()));
        while (records.size() > MAX_RECORDS) {
            records.remove(records.keySet().iterator().next());
        }
    }

    /** The completion of {@code uploadId} into {@code key}, while it is remembered. */
    public synchronized Optional<CompletedUpload> find(String bucket, String key, String uploadId) {
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
