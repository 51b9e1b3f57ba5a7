package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SizeClassesTest {

    @Test
    void eachSizeGoesToTheSmallestClassThatHoldsIt() {
        SizeClasses c = new SizeClasses(4096, 1 << 20);
        assertEquals(9, c.count());
        assertEquals(0, c.indexFor(1));
        assertEquals(0, c.indexFor(4096));
        assertEquals(1, c.indexFor(4097));
        assertEquals(1, c.indexFor(8192));
        assertEquals(2, c.indexFor(8193));
        assertEquals(8, c.indexFor(1 << 20));
        assertEquals(1 << 20, c.largest());
        for (int i = 0; i < c.count(); i++) {
            assertEquals(4096L << i, c.size(i));
            assertEquals(c.size(i), c.key(i).longValue());
            assertEquals(i, c.indexFor(c.size(i)));
        }
    }

    @Test
    void largestClassOfOneGibibyte() {
        SizeClasses c = new SizeClasses(1 << 16, 1L << 30);
        assertEquals(15, c.count());
        assertEquals(14, c.indexFor(1L << 30));
        assertEquals(14, c.indexFor((1L << 29) + 1));
        assertEquals(0, c.indexFor(100));
    }
}
