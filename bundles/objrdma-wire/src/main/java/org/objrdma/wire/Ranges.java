package org.objrdma.wire;

import org.objrdma.api.transport.Gid;

/**
 * The semantic checks every codec applies after the shape is right, shared so that the descriptor, the token and
 * both header forms refuse the same values with the same names. Each returns null for a good value, else the
 * refusal; the record constructors turn a refusal into an {@link IllegalArgumentException} so that no value exists
 * that its own parser would refuse.
 */
final class Ranges {
    /** Interface id of the IPv4-mapped unspecified address {@code ::ffff:0.0.0.0}. */
    private static final long MAPPED_UNSPECIFIED = 0x0000_FFFF_0000_0000L;

    private Ranges() {
    }

    /** True for {@code ::} and {@code ::ffff:0.0.0.0}. */
    static boolean isUnspecified(Gid gid) {
        return gid.subnetPrefix() == 0 && (gid.interfaceId() == 0 || gid.interfaceId() == MAPPED_UNSPECIFIED);
    }

    /** A GID that must name a host. */
    static <T> TokenResult<T> gid(String field, Gid gid) {
        if (isUnspecified(gid)) {
            return TokenResult.error(TokenError.UNSPECIFIED_GID, field + " is the unspecified address "
                    + gid.toIpv6String() + ": it names no host");
        }
        return null;
    }

    /**
     * {@code [address, address + size)}: size not negative (top bit clear, so never all ones), address not all ones,
     * and no wrap past 2^64.
     */
    static <T> TokenResult<T> range(String what, long address, long size) {
        if (size < 0) {
            return TokenResult.error(TokenError.BAD_SIZE, what + " size 0x" + Long.toHexString(size)
                    + (size == -1 ? " is all ones" : " does not fit 63 bits"));
        }
        if (address == -1) {
            return TokenResult.error(TokenError.BAD_SIZE, what + " address is all ones");
        }
        if (size > 0 && Long.compareUnsigned(address + size - 1, address) < 0) {
            return TokenResult.error(TokenError.BAD_SIZE, String.format("%s [0x%x, +0x%x) wraps past 2^64", what,
                    address, size));
        }
        return null;
    }

    /** Throws the refusal as a programming error (constructors). */
    static void require(TokenResult<?> refusal) {
        if (refusal != null) {
            throw new IllegalArgumentException(refusal.error() + ": " + refusal.detail());
        }
    }
}
