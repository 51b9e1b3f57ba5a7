package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Crash safety for real: a second JVM overwrites a 256 MiB object and is SIGKILLed
 * ({@link Process#destroyForcibly()}) at a random point, 20 times. After each kill a fresh store on the same
 * root must hold exactly one intact version (the old one, or the new one if the put had committed), and
 * nothing else: no listing entry, no file beyond the bucket record, the object and the lock.
 */
class FsKillTest {
    private static final long SIZE = 256L << 20;
    private static final int ROUNDS = 20;

    @TempDir
    Path root;

    @Test
    void killedWritersLeaveTheOldObjectOrTheNewOneIntactAndNothingPartial() throws Exception {
        Random random = new Random();
        long currentSeed = 1000;
        try (EmbeddedStore store = EmbeddedStores.filesystem(root, FsKillChild.USERS, StoreLimits.MAX_OBJECT_SIZE, true)) {
            store.createBucket("KILLTEST", FsKillChild.BUCKET);
            store.put(FsKillChild.BUCKET, FsKillChild.KEY, new SeededBytes(currentSeed, SIZE, p -> { }), SIZE,
                    PutOptions.DEFAULT);
        }
        long currentCrc = SeededBytes.crc(currentSeed, SIZE);
        int keptOld = 0;
        int committed = 0;
        List<String> killPoints = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            long newSeed = currentSeed + 1;
            // a random byte count to kill at; past SIZE means up to 1.5 s after the last byte: sealing, fsync,
            // rename, or already committed
            long killAt = (long) (random.nextDouble() * SIZE * 1.25);
            Outcome outcome = runAndKill(newSeed, killAt, random.nextInt(1500));
            killPoints.add(outcome.describe());
            long newCrc = SeededBytes.crc(newSeed, SIZE);
            long found = verifyOneIntactVersion();
            if (outcome.done) {
                assertEquals(newCrc, found, "round " + round + ": the put reported DONE, so the new object is there");
            }
            if (found == newCrc) {
                committed++;
                currentSeed = newSeed;
                currentCrc = newCrc;
            } else {
                assertEquals(currentCrc, found, "round " + round + ": the old object must be intact");
                keptOld++;
            }
        }
        System.out.printf("FsKillTest: %d rounds, old object kept %d times, new committed %d times; kills at %s%n",
                ROUNDS, keptOld, committed, killPoints);
        assertTrue(keptOld > 0, "at least one kill landed before the commit");
    }

    private record Outcome(long lastReported, boolean done) {
        String describe() {
            return done ? "after-commit" : (lastReported / (1 << 20)) + "MiB";
        }
    }

    private Outcome runAndKill(long seed, long killAt, int extraDelayMillis) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), FsKillChild.class.getName(),
                root.toString(), String.valueOf(seed), String.valueOf(SIZE))
                .redirectErrorStream(true).start();
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread pump = new Thread(() -> pumpLines(child.getInputStream(), lines));
        pump.setDaemon(true);
        pump.start();
        long lastReported = -1;
        boolean done = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    if (!child.isAlive() && lines.isEmpty()) {
                        break;
                    }
                    continue;
                }
                if (line.startsWith("AT ")) {
                    lastReported = Long.parseLong(line.substring(3));
                    if (lastReported >= Math.min(killAt, SIZE)) {
                        if (killAt > SIZE) {
                            Thread.sleep(extraDelayMillis);
                        }
                        break;
                    }
                } else if (line.startsWith("DONE ")) {
                    done = true;
                    break;
                } else if (!line.equals("READY")) {
                    System.out.println("child: " + line);
                }
            }
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child did not exit");
        }
        // a DONE the child printed just before the kill may still be in the pipe
        pump.join(2000);
        for (String line : lines) {
            done |= line.startsWith("DONE ");
        }
        return new Outcome(lastReported, done);
    }

    private static void pumpLines(InputStream in, LinkedBlockingQueue<String> lines) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (java.io.IOException ended) {
            // the child is gone
        }
    }

    /** Opens a fresh store, checks what it and the root show, and returns the CRC32C of the one version. */
    private long verifyOneIntactVersion() throws Exception {
        try (EmbeddedStore store = EmbeddedStores.filesystem(root, FsKillChild.USERS, StoreLimits.MAX_OBJECT_SIZE, true)) {
            assertEquals(List.of(FsKillChild.KEY), store.list(FsKillChild.BUCKET, ListRequest.all()).objects().stream()
                    .map(o -> o.key()).toList());
            List<String> files;
            try (Stream<Path> walk = Files.walk(root)) {
                files = walk.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).sorted().toList();
            }
            assertEquals(List.of(".lock", "buckets" + File.separator + FsKillChild.BUCKET + File.separator + "bucket.meta",
                    "buckets" + File.separator + FsKillChild.BUCKET + File.separator + "objects" + File.separator
                            + FsBackend.fileName(FsKillChild.KEY)), files, "nothing partial is left in the root");
            try (ObjectContent content = store.open(FsKillChild.BUCKET, FsKillChild.KEY, Conditions.NONE);
                    InputStream in = content.stream()) {
                ObjectInfo info = content.info();
                assertEquals(SIZE, info.size());
                CRC32C crc = new CRC32C();
                MessageDigest md5 = StreamDigester.newMd5();
                byte[] buf = new byte[1 << 20];
                int n;
                while ((n = in.read(buf)) > 0) {
                    crc.update(buf, 0, n);
                    md5.update(buf, 0, n);
                }
                assertEquals(info.etag(), HexFormat.of().formatHex(md5.digest()), "the record belongs to the bytes");
                return crc.getValue();
            }
        }
    }
}
