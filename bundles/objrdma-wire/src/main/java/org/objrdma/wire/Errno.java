package org.objrdma.wire;

/**
 * Linux x86-64 / aarch64 errno values. The cuObject API returns them negated ({@code -EIO}); clients return
 * them negated from their request callbacks. Only values the cuObject documentation names or its clients retry
 * on are listed.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOLINK = 67;
    public static final int ECOMM = 70;
    public static final int EPROTO = 71;
    public static final int ENOTSUP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int ENETDOWN = 100;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;

    private Errno() {
    }

    /** The symbolic name of {@code errno} (sign ignored), e.g. {@code EIO}, or {@code errno <n>}. */
    public static String name(long errno) {
        long e = Math.abs(errno);
        return switch ((int) Math.min(e, Integer.MAX_VALUE)) {
            case EPERM -> "EPERM";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOLINK -> "ENOLINK";
            case ECOMM -> "ECOMM";
            case EPROTO -> "EPROTO";
            case ENOTSUP -> "ENOTSUP";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case ENETDOWN -> "ENETDOWN";
            case ENETUNREACH -> "ENETUNREACH";
            case ECONNABORTED -> "ECONNABORTED";
            case ECONNRESET -> "ECONNRESET";
            case ENOBUFS -> "ENOBUFS";
            case ENOTCONN -> "ENOTCONN";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            default -> "errno " + e;
        };
    }
}
