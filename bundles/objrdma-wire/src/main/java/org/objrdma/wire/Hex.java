package org.objrdma.wire;

/** Fixed-width hexadecimal fields without allocation: the parsers' hot path runs on every request. */
final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    /** The value of hex digit {@code c} (either case), or -1. */
    static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** True if {@code s[from, to)} is non-empty and only hex digits. */
    static boolean isHex(CharSequence s, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (digit(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** The big-endian value of {@code s[from, to)}, at most 16 digits already checked by {@link #isHex}. */
    static long value(CharSequence s, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            v = (v << 4) | digit(s.charAt(i));
        }
        return v;
    }

    /** Byte {@code index} of the hex string starting at {@code from} (two digits per byte, checked). */
    static int byteAt(CharSequence s, int from, int index) {
        int at = from + 2 * index;
        return (digit(s.charAt(at)) << 4) | digit(s.charAt(at + 1));
    }

    /** Appends {@code value} as exactly {@code digits} lower-case hex digits (the low bits). */
    static void append(StringBuilder out, long value, int digits) {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.append(DIGITS[(int) (value >>> shift) & 0xF]);
        }
    }

    /** Appends {@code value}'s {@code bytes} low bytes in little-endian order, two digits each. */
    static void appendLittleEndian(StringBuilder out, long value, int bytes) {
        for (int i = 0; i < bytes; i++) {
            append(out, value >>> (8 * i), 2);
        }
    }

    /** The little-endian value of {@code bytes} bytes starting at hex position {@code from} (checked). */
    static long littleEndian(CharSequence s, int from, int bytes) {
        long v = 0;
        for (int i = bytes - 1; i >= 0; i--) {
            v = (v << 8) | byteAt(s, from, i);
        }
        return v;
    }
}
