package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.crc32c;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objrdma.api.session.Op;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.RdmaFixture.Prepared;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.wire.Errno;

/**
 * Issue 17, store faults during a PUT's commit, through the gateway on all four write paths (plain PUT,
 * CompleteMultipartUpload, hipobj-rc-v2 PUT, cuObject PUT), each three rounds then the {@link FaultAudit}:
 * the request fails with a 5xx, nothing is committed, the old version is intact and served, nothing leaks; and
 * once the fault is gone the same request succeeds.
 *
 * <p>Two fault sources, the same scenarios:
 * <ul>
 *   <li>{@code disk-full}: the real file store on a real 64 MiB tmpfs that the test fills with a ballast file
 *       until 1 MiB is free, so the kernel answers ENOSPC in the middle of the write. Mounting needs root with
 *       CAP_SYS_ADMIN; without it these cases are skipped (JUnit assumption, with the reason).</li>
 *   <li>{@code store-failure}: the real file store behind a wrapper that, on command, fails every write the way
 *       the store reports a failed medium ({@code INTERNAL_ERROR}, after reading part of a streamed body). It
 *       runs everywhere.</li>
 * </ul>
 */
class StoreFaultsTest {
    private static final int OLD_SIZE = 64 << 10;
    private static final int NEW_SIZE = 4 << 20;
    private static final long LEAVE_FREE = 1 << 20;
    private static final int ROUNDS = 3;

    private static Path mountPoint;
    private static String mountFailure;

    private RdmaFixture f;
    private Fault fault;
    private FaultAudit audit;

    /** A fault that can be switched on and off under a store on {@link #root()}. */
    private interface Fault extends AutoCloseable {
        Path root();

        RdmaFixture.StoreOpener opener();

        void arm() throws IOException;

        void disarm() throws IOException;

        @Override
        void close() throws IOException;
    }

    @BeforeAll
    static void mountSmallFileSystem() throws Exception {
        mountPoint = Files.createTempDirectory("objrdma-full-disk");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "objrdma-full-disk",
                mountPoint.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            mountFailure = "cannot mount a 64 MiB tmpfs here (needs root with CAP_SYS_ADMIN): " + out;
        }
    }

    @AfterAll
    static void unmount() throws Exception {
        if (mountFailure == null) {
            new ProcessBuilder("umount", mountPoint.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(mountPoint);
    }

    private void start(String source) throws Exception {
        fault = switch (source) {
            case "disk-full" -> {
                Assumptions.assumeTrue(mountFailure == null, mountFailure);
                yield new DiskFull(mountPoint);
            }
            case "store-failure" -> new FailingWrites(Files.createTempDirectory("objrdma-store-failure"));
            default -> throw new IllegalArgumentException(source);
        };
        f = new RdmaFixture(RdmaSettings.DEFAULTS, true, b -> { }, fault.opener());
        audit = new FaultAudit(f, fault.root());
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            f.close();
        }
        if (fault != null) {
            fault.close();
        }
    }

    /** Round {@code i} of a fault: the old version stays, the audit follows; the first round sets the baseline. */
    private void afterRound(int round, String key, byte[] old) throws Exception {
        TestResponse got = f.call("GET", "/bkt/" + key, "", null);
        assertEquals(200, got.status, got.text());
        assertEquals(crc32c(old), crc32c(got.bytes()), "the old version of " + key + " is intact");
        String listing = f.call("GET", "/bkt", "list-type=2", null).text();
        assertTrue(listing.contains("<Size>" + old.length + "</Size>"), listing);
        if (round == 0) {
            audit.baseline();
        } else {
            audit.check("round " + round + " of " + fault.getClass().getSimpleName());
        }
    }

    private static void assertFailed(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"disk-full", "store-failure"})
    void plainPut(String source) throws Exception {
        start(source);
        byte[] old = random(OLD_SIZE, 1);
        assertEquals(200, f.call("PUT", "/bkt/plain", "", old).status);
        for (int round = 0; round < ROUNDS; round++) {
            fault.arm();
            assertFailed(f.call("PUT", "/bkt/plain", "", random(NEW_SIZE, 10 + round)), 500, "InternalError");
            fault.disarm();
            afterRound(round, "plain", old);
        }
        byte[] now = random(NEW_SIZE, 2);
        assertEquals(200, f.call("PUT", "/bkt/plain", "", now).status, "recovered");
        assertEquals(crc32c(now), crc32c(f.call("GET", "/bkt/plain", "", null).bytes()));
        audit.check("recovery");
    }

    @ParameterizedTest
    @ValueSource(strings = {"disk-full", "store-failure"})
    void multipartComplete(String source) throws Exception {
        start(source);
        byte[] old = random(OLD_SIZE, 3);
        assertEquals(200, f.call("PUT", "/bkt/mp", "", old).status);
        byte[] p1 = random(5 << 20, 4);
        byte[] p2 = random(1000, 5);
        String id = uploadId(f.call("POST", "/bkt/mp", "uploads", new byte[0]));
        String e1 = f.call("PUT", "/bkt/mp", "partNumber=1&uploadId=" + id, p1).header("ETag");
        String e2 = f.call("PUT", "/bkt/mp", "partNumber=2&uploadId=" + id, p2).header("ETag");
        byte[] xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + e1
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + e2 + "</ETag></Part></CompleteMultipartUpload>")
                .getBytes();
        for (int round = 0; round < ROUNDS; round++) {
            fault.arm();
            assertFailed(f.call("POST", "/bkt/mp", "uploadId=" + id, xml), 500, "InternalError");
            fault.disarm();
            afterRound(round, "mp", old);
            assertTrue(f.call("GET", "/bkt", "uploads", null).text().contains(id), "the upload is still in progress");
            assertTrue(f.call("GET", "/bkt/mp", "uploadId=" + id, null).text().contains("<PartNumber>2</PartNumber>"),
                    "its parts are kept");
        }
        TestResponse done = f.call("POST", "/bkt/mp", "uploadId=" + id, xml);
        assertEquals(200, done.status, "recovered: " + done.text());
        byte[] whole = new byte[p1.length + p2.length];
        System.arraycopy(p1, 0, whole, 0, p1.length);
        System.arraycopy(p2, 0, whole, p1.length, p2.length);
        assertEquals(crc32c(whole), crc32c(f.call("GET", "/bkt/mp", "", null).bytes()));
        audit.check("recovery");
    }

    @ParameterizedTest
    @ValueSource(strings = {"disk-full", "store-failure"})
    void rcPut(String source) throws Exception {
        start(source);
        byte[] old = random(OLD_SIZE, 6);
        assertEquals(200, f.call("PUT", "/bkt/rc", "", old).status);
        for (int round = 0; round < ROUNDS; round++) {
            byte[] attempt = random(NEW_SIZE, 20 + round);
            try (ClientMemory mem = f.memory(NEW_SIZE)) {
                MemorySegment.copy(attempt, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, NEW_SIZE);
                Prepared p = f.prepare(Op.PUT, mem, "/bkt/rc", 0, NEW_SIZE);
                assertEquals(200, p.response().status, p.response().text());
                fault.arm();
                TestResponse ready = f.run(p);
                fault.disarm();
                assertFailed(ready, 500, "InternalError");
                FaultAudit.await("the session's end", () -> audit.endsOf(p.session().hex()) == 1,
                        () -> f.ended.toString());
            }
            afterRound(round, "rc", old);
        }
        byte[] now = random(NEW_SIZE, 7);
        try (ClientMemory mem = f.memory(NEW_SIZE)) {
            MemorySegment.copy(now, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, NEW_SIZE);
            TestResponse ready = f.run(f.prepare(Op.PUT, mem, "/bkt/rc", 0, NEW_SIZE));
            assertEquals(200, ready.status, "recovered: " + ready.text());
        }
        assertEquals(crc32c(now), crc32c(f.call("GET", "/bkt/rc", "", null).bytes()));
        audit.check("recovery");
    }

    @ParameterizedTest
    @ValueSource(strings = {"disk-full", "store-failure"})
    void cuObjPut(String source) throws Exception {
        start(source);
        byte[] old = random(OLD_SIZE, 8);
        assertEquals(200, f.call("PUT", "/bkt/cu", "", old).status);
        for (int round = 0; round < ROUNDS; round++) {
            byte[] attempt = random(NEW_SIZE, 30 + round);
            try (ClientMemory mem = f.memory(NEW_SIZE)) {
                MemorySegment.copy(attempt, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, NEW_SIZE);
                fault.arm();
                TestResponse r = cuObjPut(mem, "/bkt/cu");
                fault.disarm();
                assertTrue(r.status >= 500, r.status + " " + r.text());
            }
            afterRound(round, "cu", old);
        }
        byte[] now = random(NEW_SIZE, 9);
        try (ClientMemory mem = f.memory(NEW_SIZE)) {
            MemorySegment.copy(now, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, NEW_SIZE);
            TestResponse r = cuObjPut(mem, "/bkt/cu");
            assertEquals(200, r.status, "recovered: " + r.text());
        }
        assertEquals(crc32c(now), crc32c(f.call("GET", "/bkt/cu", "", null).bytes()));
        audit.check("recovery");
    }

    private TestResponse cuObjPut(ClientMemory mem, String path) {
        TestResponse[] answer = new TestResponse[1];
        f.agent.put(mem, 0, mem.segment().byteSize(), req -> {
            try {
                answer[0] = f.call("PUT", path, "", new byte[0], RdmaHeaders.TOKEN, req.headerValue());
                return answer[0].status == 200 ? req.size() : -Errno.EIO;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return answer[0];
    }

    static String uploadId(TestResponse created) {
        assertEquals(200, created.status, created.text());
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created.text());
        assertTrue(m.find(), created.text());
        return m.group(1);
    }

    // ------------------------------------------------------------------ the fault sources

    /** The file store on a small tmpfs; armed, a ballast file leaves {@link #LEAVE_FREE} bytes free. */
    private static final class DiskFull implements Fault {
        private final Path mount;
        private final Path root;
        private final Path ballast;

        DiskFull(Path mount) {
            this.mount = mount;
            this.root = mount.resolve("store");
            this.ballast = mount.resolve("ballast");
        }

        @Override
        public Path root() {
            return root;
        }

        @Override
        public RdmaFixture.StoreOpener opener() {
            return credentials -> EmbeddedStores.filesystem(root, credentials, 1L << 40, true);
        }

        @Override
        public void arm() throws IOException {
            long fill = Files.getFileStore(mount).getUsableSpace() - LEAVE_FREE;
            byte[] chunk = new byte[1 << 20];
            java.util.Arrays.fill(chunk, (byte) 0x5a); // real pages: a tmpfs does not hold holes
            try (OutputStream out = Files.newOutputStream(ballast)) {
                for (long left = fill; left > 0; left -= chunk.length) {
                    out.write(chunk, 0, (int) Math.min(chunk.length, left));
                }
            }
        }

        @Override
        public void disarm() throws IOException {
            Files.deleteIfExists(ballast);
        }

        @Override
        public void close() throws IOException {
            disarm();
            deleteTree(root);
        }
    }

    /** The file store behind a proxy whose writes fail, while armed, as a failed medium makes the store fail. */
    private static final class FailingWrites implements Fault {
        private final Path root;
        private final AtomicBoolean armed = new AtomicBoolean();

        FailingWrites(Path root) {
            this.root = root;
        }

        @Override
        public Path root() {
            return root;
        }

        @Override
        public RdmaFixture.StoreOpener opener() {
            return credentials -> {
                EmbeddedStore real = EmbeddedStores.filesystem(root, credentials, 1L << 40, true);
                return (EmbeddedStore) Proxy.newProxyInstance(EmbeddedStore.class.getClassLoader(),
                        new Class<?>[] {EmbeddedStore.class}, (proxy, method, args) -> {
                            if (armed.get() && writes(method)) {
                                for (Object a : args) {
                                    if (a instanceof InputStream body) {
                                        body.readNBytes((int) LEAVE_FREE); // what the store consumed first
                                    }
                                }
                                throw new StoreException(StoreError.INTERNAL_ERROR,
                                        "writing the staged bytes failed: java.io.IOException: No space left on device");
                            }
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            };
        }

        private static boolean writes(Method m) {
            return switch (m.getName()) {
                case "put", "uploadPart", "completeMultipartUpload", "copy" -> true;
                default -> false;
            };
        }

        @Override
        public void arm() {
            armed.set(true);
        }

        @Override
        public void disarm() {
            armed.set(false);
        }

        @Override
        public void close() throws IOException {
            deleteTree(root);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
