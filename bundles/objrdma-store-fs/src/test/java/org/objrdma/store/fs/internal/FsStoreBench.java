package org.objrdma.store.fs.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * A plain measured benchmark (run by bench.sh, not by the unit tests): the file store's put and ranged get of
 * 64 MiB from / into a native segment against a bare {@link FileChannel} doing the same I/O on the same file
 * system in the same run (write + force + rename + directory fsync; positional read), and 4 KiB puts per
 * second with fsync on and off. Reports medians; the store's put also computes MD5, which the reference
 * does not.
 */
public final class FsStoreBench {
    private static final int BIG = 64 << 20;
    private static final int SMALL = 4096;
    private static final Map<String, String> USERS = Map.of("BENCH", "bench-secret");

    private FsStoreBench() {
    }

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args.length > 0 ? args[0] : "target/bench-root").toAbsolutePath();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        double smallSeconds = args.length > 2 ? Double.parseDouble(args[2]) : 3.0;
        FsFiles.deleteTree(base);
        Files.createDirectories(base);
        System.out.printf("FsStoreBench: %s, %d rounds (+2 warm-up), JDK %s%n", base, rounds, Runtime.version());
        try (Arena arena = Arena.ofShared()) {
            // shared, like the staging pool's buffers
            MemorySegment data = arena.allocate(BIG, 4096);
            byte[] random = new byte[BIG];
            new Random(7).nextBytes(random);
            data.copyFrom(MemorySegment.ofArray(random));
            MemorySegment target = arena.allocate(BIG, 4096);
            bigTransfers(base, data, target, rounds);
        }
        smallPuts(base, true, smallSeconds);
        smallPuts(base, false, smallSeconds);
        FsFiles.deleteTree(base);
    }

    private static void bigTransfers(Path base, MemorySegment data, MemorySegment target, int rounds) throws Exception {
        Path refDir = Files.createDirectories(base.resolve("reference"));
        double[] refPut = new double[rounds];
        double[] refGet = new double[rounds];
        double[] storePut = new double[rounds];
        double[] storeGet = new double[rounds];
        double[] md5Only = new double[rounds];
        try (EmbeddedStore store = EmbeddedStores.filesystem(base.resolve("store"), USERS, StoreLimits.MAX_OBJECT_SIZE, true)) {
            store.createBucket("BENCH", "bench");
            for (int i = -2; i < rounds; i++) {
                // interleaved, so drift in the machine's load hits both sides alike
                long t0 = System.nanoTime();
                Path ref = referencePut(refDir, data);
                long t1 = System.nanoTime();
                store.put("bench", "big", data, PutOptions.DEFAULT);
                long t2 = System.nanoTime();
                referenceGet(ref, target);
                long t3 = System.nanoTime();
                try (ObjectContent c = store.open("bench", "big", Conditions.NONE)) {
                    if (c.read(0, target) != BIG) {
                        throw new IllegalStateException("short read");
                    }
                }
                long t4 = System.nanoTime();
                StreamDigester md5 = new StreamDigester(java.util.Set.of());
                md5.update(data.asByteBuffer());
                md5.finish();
                long t5 = System.nanoTime();
                if (i >= 0) {
                    md5Only[i] = mibPerSecond(t5 - t4);
                    refPut[i] = mibPerSecond(t1 - t0);
                    storePut[i] = mibPerSecond(t2 - t1);
                    refGet[i] = mibPerSecond(t3 - t2);
                    storeGet[i] = mibPerSecond(t4 - t3);
                }
            }
        }
        report("put 64 MiB (fsync)", median(storePut), median(refPut));
        report("ranged get 64 MiB", median(storeGet), median(refGet));
        System.out.printf("%-20s %8.0f MiB/s (the ETag the store computes while a put streams; bounds its put rate)%n",
                "MD5 alone", median(md5Only));
    }

    private static Path referencePut(Path dir, MemorySegment data) throws IOException {
        Path tmp = dir.resolve("tmp");
        Path dst = dir.resolve("object");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = data.asByteBuffer();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(false);
        }
        Files.move(tmp, dst, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FsFiles.syncDirectory(dir);
        return dst;
    }

    private static void referenceGet(Path file, MemorySegment target) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = target.asByteBuffer();
            while (buf.hasRemaining()) {
                if (ch.read(buf, buf.position()) < 0) {
                    throw new IOException("short file");
                }
            }
        }
    }

    private static void smallPuts(Path base, boolean fsync, double seconds) throws Exception {
        Path root = base.resolve(fsync ? "small-fsync" : "small-nofsync");
        try (Arena arena = Arena.ofConfined();
                EmbeddedStore store = EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, fsync)) {
            store.createBucket("BENCH", "bench");
            MemorySegment data = arena.allocate(SMALL);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            int n = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                store.put("bench", "k" + (n % 1000), data, PutOptions.DEFAULT);
                n++;
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.printf("4 KiB puts, fsync %-5s: %8.0f puts/s (%d in %.1f s, one thread)%n", fsync, n / elapsed,
                    n, elapsed);
        }
    }

    private static double mibPerSecond(long nanos) {
        return (BIG / (double) (1 << 20)) / (nanos / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void report(String what, double store, double reference) {
        System.out.printf("%-20s store %8.0f MiB/s   FileChannel %8.0f MiB/s   ratio %.2f%n", what, store, reference,
                store / reference);
    }
}
