package org.objrdma.s3.internal;

import java.util.HexFormat;
import java.util.Locale;
import org.objrdma.api.session.Op;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaHeaders;

/** Reading the hipobj-rc-v2 request headers; every malformed value is {@code 400 InvalidRdmaRequest}. */
final class RcHeaders {

    private RcHeaders() {
    }

    static String required(Exchange x, String name) throws S3Exception {
        String v = x.header(name);
        if (v == null || v.isBlank()) {
            throw RcErrors.bad(name + " is required");
        }
        return v.strip();
    }

    static Op op(Exchange x) throws S3Exception {
        return switch (required(x, RdmaHeaders.OP).toUpperCase(Locale.ROOT)) {
            case "GET" -> Op.GET;
            case "PUT" -> Op.PUT;
            default -> throw RcErrors.bad("x-amz-rdma-op must be GET or PUT");
        };
    }

    /** A non-negative decimal. */
    static long decimal(Exchange x, String name, boolean required) throws S3Exception {
        String v = required(x, name);
        if (v.length() > 19 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw RcErrors.bad(name + " must be a non-negative decimal, was '" + v + "'");
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw RcErrors.bad(name + " is out of range: '" + v + "'");
        }
    }

    /** Bare hex (an optional {@code 0x} is accepted), between {@code min} and {@code max} unsigned. */
    static long hex(Exchange x, String name, long min, long max) throws S3Exception {
        String v = required(x, name).toLowerCase(Locale.ROOT);
        if (v.startsWith("0x")) {
            v = v.substring(2);
        }
        long n;
        try {
            // Long.parseUnsignedLong alone would also take a leading '+' and non-ASCII digits (fullwidth, Arabic-Indic)
            if (v.isEmpty() || v.length() > 16 || !v.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                throw new NumberFormatException();
            }
            n = Long.parseUnsignedLong(v, 16);
        } catch (NumberFormatException e) {
            throw RcErrors.bad(name + " must be hex, was '" + x.header(name) + "'");
        }
        if (Long.compareUnsigned(n, min) < 0 || Long.compareUnsigned(n, max) > 0) {
            throw RcErrors.bad(name + " must be 0x" + Long.toHexString(min) + "..0x" + Long.toHexString(max));
        }
        return n;
    }

    /**
     * The client memory {@code x-amz-rdma-mr-addr} and {@code x-amz-rdma-mr-rkey} name (bare hex), {@code length}
     * bytes from that start; null when neither is sent. One without the other is 400, as is a start whose
     * {@code length} bytes would wrap past 2^64.
     */
    static org.objrdma.api.transport.RemoteRegion clientMemory(Exchange x, long length) throws S3Exception {
        boolean addr = x.header(RdmaHeaders.MR_ADDR) != null;
        boolean rkey = x.header(RdmaHeaders.MR_RKEY) != null;
        if (!addr && !rkey) {
            return null;
        }
        if (addr != rkey) {
            throw RcErrors.bad(RdmaHeaders.MR_ADDR + " and " + RdmaHeaders.MR_RKEY + " go together");
        }
        long address = hex(x, RdmaHeaders.MR_ADDR, 0, -1L);
        int key = (int) hex(x, RdmaHeaders.MR_RKEY, 0, 0xFFFF_FFFFL);
        if (Long.compareUnsigned(address, -length) > 0) {
            throw RcErrors.bad(RdmaHeaders.MR_ADDR + " 0x" + Long.toHexString(address) + " + " + length
                    + " bytes wraps past 2^64");
        }
        return new org.objrdma.api.transport.RemoteRegion(address, length, key);
    }

    /** {@link RdmaHeaders#CHANNEL_KEY} as bytes, or null when absent (a verbs token needs none). */
    static byte[] channelKey(Exchange x) throws S3Exception {
        String v = x.header(RdmaHeaders.CHANNEL_KEY);
        if (v == null) {
            return null;
        }
        try {
            return HexFormat.of().parseHex(v.strip());
        } catch (IllegalArgumentException e) {
            throw RcErrors.bad(RdmaHeaders.CHANNEL_KEY + " must be hex");
        }
    }
}
