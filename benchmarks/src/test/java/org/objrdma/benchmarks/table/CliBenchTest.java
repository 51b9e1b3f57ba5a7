package org.objrdma.benchmarks.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The result lines bin/objrdma bench prints (bundles/objrdma-cli BenchCommand), one client and several. */
class CliBenchTest {
    @Test
    void oneClientsLine() {
        CliBench.Phase p = CliBench.parse("GET 4096 B x 100 over rc: 812.3 ops/s, 3.2 MiB/s (3327181 bytes/s), 1.231 ms/op",
                0.5);
        assertEquals("GET", p.op());
        assertEquals(812.3, p.opsPerSecond());
        assertEquals(3327181, p.bytesPerSecond());
        assertEquals("rc", p.path());
        assertEquals(409600, p.bytesMoved());
        assertEquals(0.5 / (409600 / (double) (1L << 30)), p.cpuPerGiB(), 1e-9);
    }

    @Test
    void severalClientsMoveCountTimesClientsObjects() {
        CliBench.Phase p = CliBench.parse("PUT 67108864 B x 2 by 8 clients over cuobj+http: 3.1 ops/s, 199.0 MiB/s"
                + " (208666624 bytes/s), 2580.000 ms/op", 2.0);
        assertEquals("PUT", p.op());
        assertEquals("cuobj+http", p.path());
        assertEquals(1L << 30, p.bytesMoved()); // 64 MiB x 2 x 8
        assertEquals(2.0, p.cpuPerGiB(), 1e-9);
    }

    @Test
    void otherLinesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> CliBench.parse("begin GET", 0));
        assertThrows(IllegalArgumentException.class,
                () -> CliBench.parse("GET 4096 B x 100 over rc: n/a ops/s, (0 bytes/s), 1 ms/op", 0));
    }
}
