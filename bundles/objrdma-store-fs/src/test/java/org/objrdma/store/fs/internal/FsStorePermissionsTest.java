package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Everything the file store creates is its own user's only (issue 24 finding 4): the root and every directory
 * {@code rwx------}, every file (objects, records, multipart parts, the lock, temporary writes while they are
 * being written) {@code rw-------}, whatever the process umask allows (the test JVM's is typically 022, under
 * which the store used to create 0755 directories and 0644 files).
 */
class FsStorePermissionsTest {
    private static final Map<String, String> USERS = Map.of("OWNER", "owner-secret");

    @TempDir
    Path dir;

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void theRootItsDirectoriesAndEveryFileAreOwnerOnlyFromTheirCreation() throws Exception {
        // the store creates the root and its missing parents
        Path root = dir.resolve("a").resolve("b").resolve("store");
        List<String> tempModes = new ArrayList<>();
        try (EmbeddedStore s = EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, true)) {
            s.createBucket("OWNER", "bkt");
            // a body that looks at the temporary file while the store is writing it
            byte[] bytes = new byte[64 * 1024];
            InputStream watching = new InputStream() {
                private final InputStream in = new ByteArrayInputStream(bytes);
                private boolean looked;

                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (!looked && in.available() < bytes.length) {
                        looked = true;
                        try (Stream<Path> tmp = Files.list(root.resolve("tmp"))) {
                            for (Path p : tmp.toList()) {
                                tempModes.add(p.getFileName() + " " + mode(p));
                            }
                        }
                    }
                    return in.read(b, off, Math.min(len, 4096));
                }
            };
            s.put("bkt", "object", watching, bytes.length, PutOptions.DEFAULT);
            String uploadId = s.createMultipartUpload("bkt", "mp", ObjectAttributes.NONE, ChecksumAlgorithm.CRC32)
                    .uploadId();
            byte[] part = new byte[(int) StoreLimits.MIN_PART_SIZE];
            PartInfo p1 = s.uploadPart("bkt", "mp", uploadId, 1, new ByteArrayInputStream(part), part.length,
                    PutOptions.DEFAULT);
            // a second upload stays in progress, so its directory, record and part are on disk when checked
            String open = s.createMultipartUpload("bkt", "open", ObjectAttributes.NONE, ChecksumAlgorithm.CRC32)
                    .uploadId();
            s.uploadPart("bkt", "open", open, 1, new ByteArrayInputStream(new byte[] {7}), 1, PutOptions.DEFAULT);
            PartInfo p2 = s.uploadPart("bkt", "mp", uploadId, 2, new ByteArrayInputStream(new byte[] {1}), 1,
                    PutOptions.DEFAULT);
            s.completeMultipartUpload("bkt", "mp", uploadId,
                    List.of(new CompletedPart(1, p1.etag(), p1.checksums()), new CompletedPart(2, p2.etag(), p2.checksums())));

            assertEquals(1, tempModes.size(), "one temporary file while the put streamed: " + tempModes);
            assertTrue(tempModes.getFirst().endsWith(".put rw-------"), tempModes.toString());

            List<String> wrong = new ArrayList<>();
            int files = 0;
            try (Stream<Path> walk = Files.walk(dir.resolve("a"))) {
                for (Path p : walk.toList()) {
                    boolean directory = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
                    files += directory ? 0 : 1;
                    String expected = directory ? "rwx------" : "rw-------";
                    if (!mode(p).equals(expected)) {
                        wrong.add(dir.relativize(p) + " " + mode(p));
                    }
                }
            }
            assertTrue(wrong.isEmpty(), "not owner-only: " + wrong);
            // .lock, bucket.meta, two objects, the open upload's upload.meta and part
            assertEquals(6, files);
            assertNotNull(s.head("bkt", "mp", org.objrdma.api.store.Conditions.NONE));
        }
    }

    @Test
    void aRootThatExistsKeepsItsModeAndWhatTheStoreCreatesUnderItIsOwnerOnly() throws Exception {
        Path root = Files.createDirectory(dir.resolve("shared"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-x---")); // whatever the umask
        try (EmbeddedStore s = EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, false)) {
            s.createBucket("OWNER", "bkt");
            s.put("bkt", "k", new ByteArrayInputStream(new byte[] {1}), 1, PutOptions.DEFAULT);
        }
        assertEquals("rwxr-x---", mode(root), "an operator's choice for a root the store did not create stays");
        assertEquals("rwx------", mode(root.resolve("buckets")));
        assertEquals("rw-------", mode(root.resolve("buckets/bkt/objects").resolve(FsBackend.fileName("k"))));
        assertFalse(OwnerOnly.beyondOwner(root).isEmpty());
    }
}
