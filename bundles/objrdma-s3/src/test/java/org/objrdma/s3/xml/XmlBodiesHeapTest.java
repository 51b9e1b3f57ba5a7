package org.objrdma.s3.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Finding 6 of the security review: 32 concurrent maximal XML bodies (the default 3 MiB limit each, see
 * {@link XmlHeapProbe} for the four shapes) are parsed in a JVM whose heap is {@value #HEAP_MIB} MiB, and what
 * they hold at once grows the heap by at most {@value #RETAINED_MIB} MiB. The bound is generous (measured here:
 * about 2 MiB per body, 1000 keys of 1024 two-byte characters being the largest). The old parser built an
 * element tree of the whole document first, about 120 MiB for one 4 MiB body of empty elements: it runs out of
 * memory here.
 */
class XmlBodiesHeapTest {

    static final int HEAP_MIB = 192;
    static final int RETAINED_MIB = 96;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void thirtyTwoConcurrentMaximalBodiesStayWithinTheHeapBound() throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process p = new ProcessBuilder(List.of(java, "-Xmx" + HEAP_MIB + "m", "-XX:+UseSerialGC", "-cp", classpath,
                XmlHeapProbe.class.getName())).redirectErrorStream(true).start();
        String out;
        try {
            if (!p.waitFor(150, TimeUnit.SECONDS)) {
                throw new AssertionError("the probe did not finish in 150 s");
            }
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), "probe (exit 3 = OutOfMemoryError):\n" + out);
        Matcher m = Pattern.compile("retained=(-?\\d+) peak=(-?\\d+)").matcher(out);
        assertTrue(m.find(), out);
        long retained = Long.parseLong(m.group(1));
        assertTrue(retained <= RETAINED_MIB, "32 parsed bodies hold " + retained + " MiB, bound " + RETAINED_MIB);
        System.out.println("XmlBodiesHeapTest: " + out.strip());
    }
}
