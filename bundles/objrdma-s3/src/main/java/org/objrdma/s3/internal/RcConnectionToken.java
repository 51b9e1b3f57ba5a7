package org.objrdma.s3.internal;

import java.util.Locale;

/**
 * The object-request token of a cuObject-over-RC connection: {@code rc:<connection>:<address>:<size>:<rkey>}, the
 * connection the 32 hex digits {@code /.s3rdma-rc/connect} answered, the client memory's address (16 hex digits),
 * its size (hex, at least 8 digits, above 0) and the rkey of the client's registration (8 hex digits). Hex digits
 * of either case; nothing else is accepted.
 *
 * @param connection the connection id, lower case
 */
record RcConnectionToken(String connection, long address, long size, int rkey) {

    static final String PREFIX = "rc:";

    static boolean names(String header) {
        return header != null && header.strip().regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }

    /** @throws IllegalArgumentException naming what is wrong (the caller answers 400 InvalidRDMAToken) */
    static RcConnectionToken parse(String header) {
        String[] f = header.strip().split(":", -1);
        if (f.length != 5 || !f[0].equalsIgnoreCase("rc")) {
            throw new IllegalArgumentException("an rc: token is rc:<connection>:<address>:<size>:<rkey>");
        }
        String id = f[1].toLowerCase(Locale.ROOT);
        if (!hex(id, 32, 32)) {
            throw new IllegalArgumentException("the connection is 32 hex digits");
        }
        if (!hex(f[2], 16, 16)) {
            throw new IllegalArgumentException("the address is 16 hex digits");
        }
        if (!hex(f[3], 8, 16)) {
            throw new IllegalArgumentException("the size is 8 to 16 hex digits");
        }
        if (!hex(f[4], 8, 8)) {
            throw new IllegalArgumentException("the rkey is 8 hex digits");
        }
        long address = Long.parseUnsignedLong(f[2], 16);
        long size = Long.parseUnsignedLong(f[3], 16);
        if (size <= 0) {
            throw new IllegalArgumentException("the size must be above 0 and below 2^63");
        }
        if (Long.compareUnsigned(address + size - 1, address) < 0) {
            throw new IllegalArgumentException("the client memory wraps around the address space");
        }
        return new RcConnectionToken(id, address, size, (int) Long.parseLong(f[4], 16));
    }

    private static boolean hex(String s, int min, int max) {
        if (s.length() < min || s.length() > max) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
                return false;
            }
        }
        return true;
    }
}
