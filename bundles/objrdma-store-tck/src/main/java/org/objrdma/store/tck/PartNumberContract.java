package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.objrdma.store.tck.StoreFixtures.randomBytes;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;

/**
 * Parts of a completed object, as GET / HEAD {@code ?partNumber=N} address them
 * ({@link ObjectContent#part(int)}): the byte range and part count of a multipart object's parts, a single
 * put as one part, {@code InvalidPartNumber} past the last part, {@code InvalidArgument} outside
 * 1..10 000, and the layout pinned to the version opened.
 */
public abstract class PartNumberContract extends ConditionalWriteContract {

    /** Completes an upload of {@code parts} (in order, numbered from 1) as {@code key}. */
    protected void putMultipart(String key, byte[]... parts) throws Exception {
        String id = store.createMultipartUpload("bucket", key, ObjectAttributes.NONE, null)
                .uploadId();
        List<CompletedPart> done = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            PartInfo p = store.uploadPart("bucket", key, id, i + 1, new ByteArrayInputStream(parts[i]),
                    parts[i].length, PutOptions.DEFAULT);
            done.add(new CompletedPart(i + 1, p.etag()));
        }
        store.completeMultipartUpload("bucket", key, id, done);
    }

    private static byte[] streamed(ObjectContent content, PartRange range) throws Exception {
        try (InputStream in = content.stream(range.offset(), range.length())) {
            return in.readAllBytes();
        }
    }

    @Test
    void partsOfAMultipartObjectHaveTheirRangesAndCount() throws Exception {
        // two parts of one size, one larger, a short last one: the sizes do not form one run
        byte[][] parts = {randomBytes(41, 5 * MIB), randomBytes(42, 5 * MIB), randomBytes(43, 5 * MIB + 7),
            randomBytes(44, 1001)};
        putMultipart("mp", parts);
        try (ObjectContent content = store.open("bucket", "mp", Conditions.NONE)) {
            assertEquals(4, content.info().partsCount());
            long offset = 0;
            for (int n = 1; n <= parts.length; n++) {
                PartRange range = content.part(n);
                assertEquals(new PartRange(n, 4, offset, parts[n - 1].length), range, "part " + n);
                assertArrayEquals(parts[n - 1], streamed(content, range), "bytes of part " + n);
                offset += parts[n - 1].length;
            }
            assertEquals(content.info().size(), offset);
            PartRange third = content.part(3);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment seg = arena.allocate(third.length());
                assertEquals(third.length(), content.read(third.offset(), seg));
                assertArrayEquals(parts[2], seg.toArray(ValueLayout.JAVA_BYTE), "part 3 read into a segment");
            }
            assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> content.part(5)));
            assertEquals(416, StoreError.INVALID_PART_NUMBER.httpStatus());
            assertEquals("InvalidPartNumber", StoreError.INVALID_PART_NUMBER.s3Code());
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> content.part(0)));
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> content.part(-1)));
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> content.part(StoreLimits.MAX_PART_NUMBER + 1)));
            assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> content.part(StoreLimits.MAX_PART_NUMBER)));
        }
    }

    @Test
    void aSinglePutIsOnePartTheWholeObject() throws Exception {
        byte[] data = randomBytes(45, 4321);
        put("single", data);
        put("empty", new byte[0]);
        try (ObjectContent content = store.open("bucket", "single", Conditions.NONE)) {
            assertEquals(0, content.info().partsCount());
            assertEquals(PartRange.whole(data.length), content.part(1));
            assertArrayEquals(data, streamed(content, content.part(1)));
            assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> content.part(2)));
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> content.part(0)));
        }
        try (ObjectContent content = store.open("bucket", "empty", Conditions.NONE)) {
            assertEquals(new PartRange(1, 1, 0, 0), content.part(1));
            assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> content.part(2)));
        }
    }

    @Test
    void oneSmallPartAndAnEmptyLastPart() throws Exception {
        byte[] small = randomBytes(46, 17);
        putMultipart("one", small);
        byte[] first = randomBytes(47, 5 * MIB);
        putMultipart("trailing-empty", first, new byte[0]);
        try (ObjectContent content = store.open("bucket", "one", Conditions.NONE)) {
            assertEquals(1, content.info().partsCount());
            assertEquals(new PartRange(1, 1, 0, 17), content.part(1));
            assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> content.part(2)));
        }
        try (ObjectContent content = store.open("bucket", "trailing-empty", Conditions.NONE)) {
            assertEquals(new PartRange(1, 2, 0, first.length), content.part(1));
            assertEquals(new PartRange(2, 2, first.length, 0), content.part(2));
            assertEquals(0, streamed(content, content.part(2)).length);
        }
    }

    @Test
    void thePartLayoutIsTheOpenedVersions() throws Exception {
        byte[][] parts = {randomBytes(48, 5 * MIB), randomBytes(49, 300)};
        putMultipart("versioned", parts);
        try (ObjectContent old = store.open("bucket", "versioned", Conditions.NONE)) {
            byte[] replacement = randomBytes(50, 999);
            put("versioned", replacement);
            assertEquals(new PartRange(2, 2, 5 * MIB, 300), old.part(2), "an open handle keeps its version's parts");
            assertArrayEquals(parts[1], streamed(old, old.part(2)));
            try (ObjectContent current = store.open("bucket", "versioned", Conditions.NONE)) {
                assertEquals(PartRange.whole(replacement.length), current.part(1));
                assertEquals(StoreError.INVALID_PART_NUMBER, error(() -> current.part(2)));
            }
        }
        // a copy of a multipart object is a single put of its bytes, as in S3
        putMultipart("source", parts);
        store.copy("bucket", "source", Conditions.NONE, "bucket", "copied", null);
        try (ObjectContent copy = store.open("bucket", "copied", Conditions.NONE)) {
            assertEquals(0, copy.info().partsCount());
            assertEquals(PartRange.whole(5 * MIB + 300), copy.part(1));
        }
    }

    @Test
    void partRangeRefusesWhatIsNotAPart() {
        for (int[] bad : new int[][] {{0, 1}, {2, 1}, {1, 0}, {-1, 3}}) {
            assertThrows(IllegalArgumentException.class,
                    () -> new PartRange(bad[0], bad[1], 0, 1), Arrays.toString(bad));
        }
        assertThrows(IllegalArgumentException.class, () -> new PartRange(1, 1, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> new PartRange(1, 1, 0, -1));
        StoreException e = PartRange.notSatisfiable(3, 2);
        assertEquals(StoreError.INVALID_PART_NUMBER, e.error());
    }
}
