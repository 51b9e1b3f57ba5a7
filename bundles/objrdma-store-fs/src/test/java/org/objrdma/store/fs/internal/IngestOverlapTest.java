package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * The PUT path's overlap (docs/bench/profile.md, fs store PUT): a streamed body of a known length of at least
 * 1 MiB is written on the store's writer thread while the caller digests the next chunk (before: MD5 and write on
 * one thread, one after the other), and a segment's writer flushes its bytes to the medium before the seal. Into
 * a real staging file ({@link FsStaging}), recording which thread wrote and forced; the bytes and the MD5 checked.
 */
class IngestOverlapTest {
    @TempDir
    Path dir;

    /** The real staging file, with a record of who called what. */
    private static final class Recorded implements Backend.Staging {
        final FsStaging file;
        final List<String> writes = new CopyOnWriteArrayList<>();
        final List<String> forces = new CopyOnWriteArrayList<>();
        volatile IOException failAfter;
        volatile long written;
        final long failAt;

        Recorded(Path p, long failAt) throws IOException {
            this.file = new FsStaging(p, true);
            this.failAt = failAt;
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            writes.add(Thread.currentThread().getName());
            if (written >= failAt) {
                throw new IOException("the medium is full");
            }
            written += bytes.remaining();
            file.write(bytes);
        }

        @Override
        public void forceWritten() throws IOException {
            forces.add(Thread.currentThread().getName() + "@" + written);
            file.forceWritten();
        }

        @Override
        public void sealObject(ObjectInfo info, PartLayout parts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sealPart(PartInfo info) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            file.close();
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    private static String md5(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    }

    /** Hands out at most 1000 bytes per read, as a socket does: the chunks must still be filled whole. */
    private static InputStream trickling(byte[] data) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1000));
            }
        };
    }

    @Test
    void aStreamedBodyIsWrittenOnTheWriterThreadWhileThisOneDigests() throws Exception {
        byte[] data = random((4 << 20) + 17);
        Path p = dir.resolve("s.put");
        try (Recorded staging = new Recorded(p, Long.MAX_VALUE)) {
            Digests d = Ingest.fromStream(trickling(data), data.length, Long.MAX_VALUE, Set.of(),
                    CommitVerifier.ACCEPT_ALL, staging);
            assertEquals(md5(data), d.md5Hex());
            assertEquals(data.length, d.length());
            assertFalse(staging.writes.isEmpty());
            assertTrue(staging.writes.stream().allMatch("objrdma-store-write"::equals),
                    "written by " + staging.writes.stream().distinct().toList() + " in " + staging.writes.size()
                            + " writes");
            assertEquals(17, staging.writes.size(), "whole 256 KiB chunks, not one write per socket read");
            assertArrayEquals(data, Files.readAllBytes(p));
        }
    }

    @Test
    void aSmallOrUnknownLengthBodyStaysOnTheCallersThread() throws Exception {
        String me = Thread.currentThread().getName();
        for (long declared : new long[] {(1 << 20) - 1, -1}) {
            byte[] data = random((1 << 20) - 1);
            try (Recorded staging = new Recorded(dir.resolve("small" + declared), Long.MAX_VALUE)) {
                Digests d = Ingest.fromStream(new ByteArrayInputStream(data), declared, Long.MAX_VALUE, Set.of(),
                        CommitVerifier.ACCEPT_ALL, staging);
                assertEquals(md5(data), d.md5Hex());
                assertTrue(staging.writes.stream().allMatch(me::equals),
                        "written by " + staging.writes.stream().distinct().toList());
            }
        }
    }

    @Test
    void aFailedWriteOrAShortOrLongBodyIsAnErrorAndTheWriterEnds() throws Exception {
        byte[] data = random(4 << 20);
        try (Recorded staging = new Recorded(dir.resolve("fail"), 1 << 20)) {
            StoreException e = assertThrows(StoreException.class, () -> Ingest.fromStream(
                    new ByteArrayInputStream(data), data.length, Long.MAX_VALUE, Set.of(), CommitVerifier.ACCEPT_ALL,
                    staging));
            assertEquals(StoreError.INTERNAL_ERROR, e.error());
        }
        try (Recorded staging = new Recorded(dir.resolve("short"), Long.MAX_VALUE)) {
            StoreException e = assertThrows(StoreException.class, () -> Ingest.fromStream(
                    new ByteArrayInputStream(data), data.length + 1L, Long.MAX_VALUE, Set.of(),
                    CommitVerifier.ACCEPT_ALL, staging));
            assertEquals(StoreError.INCOMPLETE_BODY, e.error());
            assertTrue(e.getMessage().contains("after " + data.length + " of " + (data.length + 1)), e.getMessage());
        }
        try (Recorded staging = new Recorded(dir.resolve("long"), Long.MAX_VALUE)) {
            StoreException e = assertThrows(StoreException.class, () -> Ingest.fromStream(
                    new ByteArrayInputStream(data), data.length - 1L, Long.MAX_VALUE, Set.of(),
                    CommitVerifier.ACCEPT_ALL, staging));
            assertEquals(StoreError.INVALID_ARGUMENT, e.error());
        }
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("objrdma-store-write") && t.isAlive()), "no writer left behind");
    }

    @Test
    void aSegmentsWriterFlushesItsBytesBeforeTheSeal() throws Exception {
        byte[] data = random(16 << 20);
        try (Arena arena = Arena.ofShared();
                Recorded staging = new Recorded(dir.resolve("seg"), Long.MAX_VALUE)) {
            MemorySegment source = arena.allocate(data.length);
            source.copyFrom(MemorySegment.ofArray(data));
            Digests d = Ingest.fromSegment(source, Long.MAX_VALUE, Set.of(), CommitVerifier.ACCEPT_ALL, staging);
            assertEquals(md5(data), d.md5Hex());
            assertEquals(List.of("objrdma-store-write@" + data.length), staging.forces,
                    "one force, on the writer thread, after every byte");
        }
    }
}
