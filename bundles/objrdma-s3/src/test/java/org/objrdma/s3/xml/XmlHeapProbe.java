package org.objrdma.s3.xml;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Settings;

/**
 * Run in its own JVM by {@link XmlBodiesHeapTest} with a small {@code -Xmx}: {@value #BODIES} threads parse a
 * maximal body each at once (the default byte limit; four shapes: megabytes of empty elements, 1000 keys of
 * 1024 two-byte characters, 10000 parts with checksums, a body of long comments), hold what they got until
 * all are done, and the heap is measured then. Prints {@code retained=<MiB> peak=<MiB>}; exit 0 when every
 * body got its expected outcome, 3 on OutOfMemoryError, 1 otherwise.
 */
public final class XmlHeapProbe {

    static final int BODIES = 32;
    private static final int LIMIT = S3Settings.DEFAULTS.maxXmlBodyBytes();

    private XmlHeapProbe() {
    }

    static GeneratedBody shape(int i) {
        return switch (i % 4) {
            case 0 -> GeneratedBody.filling("<Delete><Object><Key>k</Key>", "<a/>", "</Object></Delete>", LIMIT);
            case 1 -> new GeneratedBody("<Delete>", "<Object><Key>" + "\u00e9".repeat(1024) + "</Key></Object>",
                    1000, "</Delete>");
            case 2 -> new GeneratedBody("<CompleteMultipartUpload>", "<Part><ChecksumSHA256>" + "A".repeat(43)
                    + "=</ChecksumSHA256><ETag>\"" + "0123456789abcdef".repeat(2) + "\"</ETag><PartNumber>1"
                    + "</PartNumber></Part>", 10_000, "</CompleteMultipartUpload>");
            default -> GeneratedBody.filling("<Delete><Object><Key>k</Key></Object>", "<!--" + "c".repeat(4000) + "-->",
                    "</Delete>", LIMIT);
        };
    }

    /** What shape {@code i} must give: the number of entries parsed, or the S3 code of its refusal. */
    static String expected(int i) {
        return switch (i % 4) {
            case 0 -> "MalformedXML";
            case 1 -> "1000";
            case 2 -> "10000";
            default -> "1";
        };
    }

    private static Object parse(int i) throws S3Exception {
        GeneratedBody body = shape(i);
        return i % 4 == 2 ? XmlBodies.completeMultipartUpload(body, LIMIT, 10_000)
                : XmlBodies.deleteObjects(body, LIMIT, 1000);
    }

    private static String outcome(Object result) {
        if (result instanceof List<?> parts) {
            return Integer.toString(parts.size());
        }
        if (result instanceof XmlBodies.DeleteRequest d) {
            return Integer.toString(d.objects().size());
        }
        return ((S3Exception) result).code();
    }

    private static long usedHeap() {
        System.gc();
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                used += pool.getUsage().getUsed();
            }
        }
        return used;
    }

    private static long peakHeap() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    public static void main(String[] args) throws Exception {
        // warm the parser once so its classes and tables are in the baseline
        parse(1);
        long before = usedHeap();
        ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
        Object[] results = new Object[BODIES];
        Throwable[] failures = new Throwable[BODIES];
        CyclicBarrier start = new CyclicBarrier(BODIES);
        CyclicBarrier done = new CyclicBarrier(BODIES + 1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < BODIES; i++) {
            int n = i;
            threads.add(Thread.ofPlatform().name("body-" + i).start(() -> {
                try {
                    start.await(60, TimeUnit.SECONDS);
                    try {
                        results[n] = parse(n);
                    } catch (S3Exception e) {
                        results[n] = e;
                    }
                } catch (Throwable t) {
                    failures[n] = t;
                } finally {
                    try {
                        // everyone keeps what it parsed until all are measured
                        done.await(120, TimeUnit.SECONDS);
                    } catch (Exception ignored) {
                        // measured without this one
                    }
                }
            }));
        }
        done.await(120, TimeUnit.SECONDS);
        long retained = usedHeap() - before;
        long peak = peakHeap() - before;
        System.out.printf("retained=%d peak=%d%n", retained >> 20, peak >> 20);
        int status = 0;
        for (int i = 0; i < BODIES; i++) {
            if (failures[i] instanceof OutOfMemoryError) {
                System.out.println("body " + i + ": " + failures[i]);
                status = 3;
            } else if (failures[i] != null) {
                System.out.println("body " + i + ": " + failures[i]);
                status = Math.max(status, 1);
            } else if (!expected(i).equals(outcome(results[i]))) {
                System.out.println("body " + i + ": expected " + expected(i) + ", got " + outcome(results[i]));
                status = Math.max(status, 1);
            }
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        System.exit(status);
    }
}
