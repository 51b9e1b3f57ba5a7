package org.objrdma.s3.xml;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A request body produced as it is read, from a head, a repeated unit and a tail: a test can send bodies of
 * several MiB without holding them, so the heap a parser uses is what it keeps, not the test's input.
 */
final class GeneratedBody extends InputStream {

    private final byte[] head;
    private final byte[] unit;
    private final byte[] tail;
    private final long units;
    private long position;

    GeneratedBody(String head, String unit, long units, String tail) {
        this.head = head.getBytes(StandardCharsets.UTF_8);
        this.unit = unit.getBytes(StandardCharsets.UTF_8);
        this.tail = tail.getBytes(StandardCharsets.UTF_8);
        this.units = units;
    }

    /** Repeats {@code unit} as often as fits in {@code totalBytes} with head and tail. */
    static GeneratedBody filling(String head, String unit, String tail, long totalBytes) {
        long room = totalBytes - head.getBytes(StandardCharsets.UTF_8).length - tail.getBytes(StandardCharsets.UTF_8).length;
        return new GeneratedBody(head, unit, room / unit.getBytes(StandardCharsets.UTF_8).length, tail);
    }

    long length() {
        return head.length + units * unit.length + tail.length;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        long total = length();
        if (position >= total) {
            return -1;
        }
        int n = 0;
        while (n < len && position < total) {
            b[off + n++] = at(position++);
        }
        return n;
    }

    private byte at(long p) {
        if (p < head.length) {
            return head[(int) p];
        }
        p -= head.length;
        if (p < units * unit.length) {
            return unit[(int) (p % unit.length)];
        }
        return tail[(int) (p - units * unit.length)];
    }
}
