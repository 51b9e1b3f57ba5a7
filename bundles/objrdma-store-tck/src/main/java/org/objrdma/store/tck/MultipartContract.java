package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.store.tck.StoreFixtures.checksum;
import static org.objrdma.store.tck.StoreFixtures.md5Hex;
import static org.objrdma.store.tck.StoreFixtures.randomBytes;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;

/**
 * The multipart contract: parts, listing parts and uploads, completion checks, the multipart ETag and
 * composite checksum, abort.
 */
public abstract class MultipartContract extends ListingContract {

    @Test
    void multipartUploadCompletesWithS3sETagAndChecksum() throws Exception {
        byte[] p1 = randomBytes(11, 5 * MIB);
        byte[] p2 = randomBytes(12, 5 * MIB + 1);
        byte[] p3 = randomBytes(13, 1234);
        ObjectAttributes attrs = new ObjectAttributes("video/mp4", null, null, null, null, null, Map.of("m", "v"));
        UploadInfo upload = store.createMultipartUpload("bucket", "big", attrs, ChecksumAlgorithm.CRC32C);
        assertEquals(ChecksumAlgorithm.CRC32C, upload.checksumAlgorithm());
        String id = upload.uploadId();
        PartInfo i1 = store.uploadPart("bucket", "big", id, 1, new ByteArrayInputStream(p1), p1.length, PutOptions.DEFAULT);
        assertEquals(md5Hex(p1), i1.etag());
        assertEquals(checksum(ChecksumAlgorithm.CRC32C, p1), i1.checksums().get(ChecksumAlgorithm.CRC32C));
        PartInfo i2;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(p2.length);
            seg.copyFrom(MemorySegment.ofArray(p2));
            i2 = store.uploadPart("bucket", "big", id, 2, seg, PutOptions.DEFAULT);
        }
        store.uploadPart("bucket", "big", id, 3, new ByteArrayInputStream(new byte[10]), 10, PutOptions.DEFAULT);
        PartInfo i3 = store.uploadPart("bucket", "big", id, 3, new ByteArrayInputStream(p3), -1, PutOptions.DEFAULT);
        assertEquals(md5Hex(p3), i3.etag(), "a part uploaded again replaces the earlier one");
        store.uploadPart("bucket", "big", id, 9, new ByteArrayInputStream(new byte[5]), 5, PutOptions.DEFAULT);

        PartsPage parts = store.listParts("bucket", "big", id, 0, 2);
        assertEquals(List.of(1, 2), parts.parts().stream().map(PartInfo::partNumber).toList());
        assertTrue(parts.truncated());
        assertEquals(2, parts.nextPartNumberMarker());
        PartsPage rest = store.listParts("bucket", "big", id, 2, 1000);
        assertEquals(List.of(3, 9), rest.parts().stream().map(PartInfo::partNumber).toList());
        assertFalse(rest.truncated());
        assertEquals(p3.length, rest.parts().getFirst().size());
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.head("bucket", "big", Conditions.NONE)),
                "parts are not visible before completion");

        PutResult done = store.completeMultipartUpload("bucket", "big", id, List.of(new CompletedPart(1, "\"" + i1.etag() + "\""),
                new CompletedPart(2, i2.etag(), i2.checksums()), new CompletedPart(3, i3.etag())));
        String expectedETag = md5Hex(HexFormat.of().parseHex(md5Hex(p1)), HexFormat.of().parseHex(md5Hex(p2)),
                HexFormat.of().parseHex(md5Hex(p3))) + "-3";
        assertEquals(expectedETag, done.etag());
        assertEquals(ChecksumAlgorithm.CRC32C.composite(List.of(checksum(ChecksumAlgorithm.CRC32C, p1),
                checksum(ChecksumAlgorithm.CRC32C, p2), checksum(ChecksumAlgorithm.CRC32C, p3))),
                done.checksums().get(ChecksumAlgorithm.CRC32C));
        assertTrue(done.checksums().get(ChecksumAlgorithm.CRC32C).endsWith("-3"));
        ObjectInfo head = store.head("bucket", "big", Conditions.NONE);
        assertEquals(3, head.partsCount());
        assertEquals(attrs, head.attributes());
        assertEquals((long) p1.length + p2.length + p3.length, head.size());
        byte[] whole = get("bucket", "big");
        assertArrayEquals(p1, Arrays.copyOfRange(whole, 0, p1.length));
        assertArrayEquals(p2, Arrays.copyOfRange(whole, p1.length, p1.length + p2.length));
        assertArrayEquals(p3, Arrays.copyOfRange(whole, p1.length + p2.length, whole.length));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.listParts("bucket", "big", id, 0, 10)));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "big", id,
                List.of(new CompletedPart(1, i1.etag())))), "a repeated completion naming other parts");
        assertTrue(store.listMultipartUploads("bucket", ListUploadsRequest.all()).uploads().isEmpty());
    }

    /**
     * A CompleteMultipartUpload repeated after it succeeded (an SDK retrying a completion whose response was
     * lost) answers the first result for {@link org.objrdma.api.store.CompletedUpload#RETENTION}; naming
     * other parts is InvalidPart; an upload id never completed stays NoSuchUpload. A part uploaded twice
     * is the last upload, and completing with its ETag succeeds.
     */
    @Test
    void aRepeatedCompletionAnswersTheFirstResult() throws Exception {
        String id = store.createMultipartUpload("bucket", "again", ObjectAttributes.NONE, null).uploadId();
        byte[] first = randomBytes(31, 5 * MIB);
        byte[] second = randomBytes(32, 5 * MIB);
        byte[] last = randomBytes(33, 100);
        PartInfo old = store.uploadPart("bucket", "again", id, 1, new ByteArrayInputStream(first), first.length,
                PutOptions.DEFAULT);
        PartInfo p1 = store.uploadPart("bucket", "again", id, 1, new ByteArrayInputStream(second), second.length,
                PutOptions.DEFAULT);
        PartInfo p2 = store.uploadPart("bucket", "again", id, 2, new ByteArrayInputStream(last), last.length,
                PutOptions.DEFAULT);
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "again", id,
                List.of(new CompletedPart(1, old.etag()), new CompletedPart(2, p2.etag())))),
                "the replaced upload of part 1 is gone");
        List<CompletedPart> parts = List.of(new CompletedPart(1, p1.etag()), new CompletedPart(2, "\"" + p2.etag() + "\""));
        PutResult done = store.completeMultipartUpload("bucket", "again", id, parts);
        PutResult repeated = store.completeMultipartUpload("bucket", "again", id,
                List.of(new CompletedPart(1, "\"" + p1.etag() + "\""), new CompletedPart(2, p2.etag())));
        assertEquals(done, repeated);
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "again", id,
                List.of(new CompletedPart(1, p1.etag())))));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.completeMultipartUpload("bucket", "other", id, parts)),
                "the record is the upload's, for its key only");
        byte[] whole = get("bucket", "again");
        assertArrayEquals(second, Arrays.copyOfRange(whole, 0, second.length));
        assertArrayEquals(last, Arrays.copyOfRange(whole, second.length, whole.length));
        String aborted = store.createMultipartUpload("bucket", "gone", ObjectAttributes.NONE, null).uploadId();
        PartInfo g = store.uploadPart("bucket", "gone", aborted, 1, new ByteArrayInputStream(last), last.length,
                PutOptions.DEFAULT);
        store.abortMultipartUpload("bucket", "gone", aborted);
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.completeMultipartUpload("bucket", "gone", aborted,
                List.of(new CompletedPart(1, g.etag())))), "an aborted upload has no completion to repeat");
    }

    @Test
    void completeRefusesBadPartLists() throws Exception {
        String id = store.createMultipartUpload("bucket", "k", ObjectAttributes.NONE, null).uploadId();
        byte[] small = randomBytes(21, 1000);
        byte[] big = randomBytes(22, 5 * MIB);
        PartInfo s1 = store.uploadPart("bucket", "k", id, 1, new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT);
        PartInfo b2 = store.uploadPart("bucket", "k", id, 2, new ByteArrayInputStream(big), big.length, PutOptions.DEFAULT);
        PartInfo s3 = store.uploadPart("bucket", "k", id, 3, new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT);
        assertEquals(StoreError.MALFORMED_XML, error(() -> store.completeMultipartUpload("bucket", "k", id, List.of())));
        assertEquals(StoreError.INVALID_PART_ORDER, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(1, s1.etag())))));
        assertEquals(StoreError.INVALID_PART_ORDER, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(2, b2.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, s1.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(4, s1.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag(), Map.of(ChecksumAlgorithm.CRC32, "AAAAAA=="))))));
        assertEquals(StoreError.ENTITY_TOO_SMALL, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(1, s1.etag()), new CompletedPart(2, b2.etag())))));
        for (int bad : new int[] {0, -1, 10_001}) {
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.uploadPart("bucket", "k", id, bad,
                    new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)), "part " + bad);
        }
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "other-key", id, 1,
                new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "k", "../../etc", 1,
                new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)));
        assertEquals(StoreError.BAD_DIGEST, error(() -> store.uploadPart("bucket", "k", id, 3, new ByteArrayInputStream(big),
                big.length, PutOptions.DEFAULT.withVerifier(d -> {
                    throw new StoreException(StoreError.BAD_DIGEST, "planted");
                }))));
        assertThrows(IOException.class, () -> store.uploadPart("bucket", "k", id, 3, StoreFixtures.failingAfter(big, 100),
                big.length, PutOptions.DEFAULT));
        assertEquals(s3.etag(), store.listParts("bucket", "k", id, 2, 10).parts().getFirst().etag(),
                "a refused part left the earlier one");
        // the last part may be small; unnamed parts are dropped
        PutResult done = store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(3, s3.etag())));
        assertEquals(big.length + small.length, done.size());
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.abortMultipartUpload("bucket", "k", id)));
    }

    @Test
    void abortAndListUploads() throws Exception {
        UploadInfo a1 = store.createMultipartUpload("bucket", "a", ObjectAttributes.NONE, null);
        UploadInfo a2 = store.createMultipartUpload("bucket", "a", ObjectAttributes.NONE, null);
        UploadInfo b = store.createMultipartUpload("bucket", "b/x", ObjectAttributes.NONE, ChecksumAlgorithm.SHA1);
        UploadInfo c = store.createMultipartUpload("bucket", "c", ObjectAttributes.NONE, null);
        UploadsPage all = store.listMultipartUploads("bucket", ListUploadsRequest.all());
        assertEquals(List.of("a", "a", "b/x", "c"), all.uploads().stream().map(UploadInfo::key).toList());
        assertFalse(all.truncated());
        UploadsPage first = store.listMultipartUploads("bucket", new ListUploadsRequest("", null, null, 3));
        assertTrue(first.truncated());
        assertEquals("b/x", first.nextKeyMarker());
        assertEquals(b.uploadId(), first.nextUploadIdMarker());
        UploadsPage next = store.listMultipartUploads("bucket",
                new ListUploadsRequest("", first.nextKeyMarker(), first.nextUploadIdMarker(), 3));
        assertEquals(List.of(c.uploadId()), next.uploads().stream().map(UploadInfo::uploadId).toList());
        assertEquals(List.of("b/x", "c"), store.listMultipartUploads("bucket", new ListUploadsRequest("", "a", null, 10))
                .uploads().stream().map(UploadInfo::key).toList());
        assertEquals(List.of(b.uploadId()), store.listMultipartUploads("bucket", new ListUploadsRequest("b/", null, null, 10))
                .uploads().stream().map(UploadInfo::uploadId).toList());
        store.uploadPart("bucket", "a", a1.uploadId(), 1, new ByteArrayInputStream(new byte[3]), 3, PutOptions.DEFAULT);
        store.abortMultipartUpload("bucket", "a", a1.uploadId());
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.listParts("bucket", "a", a1.uploadId(), 0, 10)));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.abortMultipartUpload("bucket", "a", a1.uploadId())));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "a", a1.uploadId(), 1,
                new ByteArrayInputStream(new byte[3]), 3, PutOptions.DEFAULT)));
        assertEquals(ChecksumAlgorithm.SHA1, store.listParts("bucket", "b/x", b.uploadId(), 0, 10).upload().checksumAlgorithm());
        assertEquals(3, store.listMultipartUploads("bucket", ListUploadsRequest.all()).uploads().size());
        assertEquals(List.of(a2.uploadId()), store.listMultipartUploads("bucket", new ListUploadsRequest("a", null, null, 10))
                .uploads().stream().filter(u -> u.key().equals("a")).map(UploadInfo::uploadId).toList());
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.createMultipartUpload("nob", "k", ObjectAttributes.NONE, null)));
        assertEquals(StoreError.KEY_TOO_LONG, error(() -> store.createMultipartUpload("bucket", "k".repeat(1025),
                ObjectAttributes.NONE, null)));
    }

}
