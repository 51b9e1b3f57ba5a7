package org.objrdma.api.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompletionRecordsTest {
    private static final PutResult RESULT = new PutResult("\"etag-2\"", 10, Instant.EPOCH, Map.of());
    private static final List<CompletedPart> PARTS = List.of(new CompletedPart(1, "\"a\""), new CompletedPart(2, "\"b\""));

    /** A clock the test moves. */
    private static final class Manual extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void aCompletionIsFoundByBucketUploadAndKeyUntilItsRetentionEnds() {
        Manual clock = new Manual();
        CompletionRecords records = new CompletionRecords(clock);
        records.add("b", "k", "u1", PARTS, RESULT);
        CompletedUpload found = records.find("b", "k", "u1").orElseThrow();
        assertEquals(PARTS, found.parts());
        assertEquals(RESULT, found.result());
        assertEquals(clock.now, found.completed());
        assertTrue(records.find("b", "other-key", "u1").isEmpty(), "another key is not this upload's");
        assertTrue(records.find("other-bucket", "k", "u1").isEmpty());
        assertTrue(records.find("b", "k", null).isEmpty());

        clock.now = clock.now.plus(CompletedUpload.RETENTION).minus(Duration.ofSeconds(1));
        assertTrue(records.find("b", "k", "u1").isPresent());
        clock.now = clock.now.plus(Duration.ofSeconds(1));
        assertTrue(records.find("b", "k", "u1").isEmpty(), "forgotten once RETENTION has passed");
    }

    @Test
    void theOldestIsDroppedBeyondMaxRecords() {
        CompletionRecords records = new CompletionRecords(new Manual());
        for (int i = 0; i <= CompletionRecords.MAX_RECORDS; i++) {
            records.add("b", "k", "u" + i, PARTS, RESULT);
        }
        assertTrue(records.find("b", "k", "u0").isEmpty());
        assertTrue(records.find("b", "k", "u1").isPresent());
        assertTrue(records.find("b", "k", "u" + CompletionRecords.MAX_RECORDS).isPresent());
    }
}
