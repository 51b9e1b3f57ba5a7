package org.objrdma.wire;

/** Why a token, descriptor, header value or key was refused. Parsers return these; they never throw. */
public enum TokenError {
    /** The input was null or empty. */
    EMPTY,
    /** The input is not as long as the form requires (81 hex for a descriptor, 88 for an RC token). */
    WRONG_LENGTH,
    /** A field separator ({@code :}) is missing or sits where a digit belongs. */
    BAD_SEPARATOR,
    /** A field holds a character that is not a hexadecimal digit. */
    NOT_HEX,
    /** The descriptor's has_gid field is neither {@code 0} nor {@code 1}. */
    BAD_HAS_GID,
    /** The {@code :addr:size} suffix is not two fields of 1 to 16 hex digits. */
    BAD_SUFFIX,
    /** Something follows the token that no accepted form allows (anything after the optional {@code ;}). */
    TRAILING_CHARACTERS,
    /** The descriptor cannot name a TCP memory agent: it carries no GID, or its port (lid) is 0. */
    NOT_TCP_ADDRESSABLE,
    /** The RC token's transport byte does not name the transport the caller needs. */
    WRONG_TRANSPORT,
    /** A field's value does not fit what it maps to (a verbs QPN above 24 bits, port 0). */
    OUT_OF_RANGE,
    /** An access key is not 16 to 64 bytes of hex or base64. */
    BAD_KEY,
    /**
     * A GID that names no host: the unspecified address {@code ::} or its IPv4-mapped form
     * {@code ::ffff:0.0.0.0} (a token or descriptor must name the peer; the all-zero RC token, the loopback
     * marker, is the one exception).
     */
    UNSPECIFIED_GID,
    /** A descriptor with has_gid 0 whose GID field is not all zeros: the GID would be silently ignored. */
    STRAY_GID,
    /**
     * A size or address field that cannot be meant: all ones (the {@code -1} of C), a 64-bit size with the top bit
     * set (it does not fit a Java {@code long} length), or an address range that wraps past 2^64.
     */
    BAD_SIZE,
    /**
     * An address a server refuses to dial because its {@link AddressPolicy} does not allow it: a built-in block
     * (loopback, unspecified, link-local, multicast, broadcast, reserved; embedded IPv4 forms judged as the IPv4
     * address), one of the server host's own addresses, or the deny list, unless the configured allow list names it.
     */
    ADDRESS_NOT_ALLOWED,
    /** An allow- or deny-list entry of an {@link AddressPolicy} is not a literal CIDR block (or, denying, {@code private}). */
    BAD_CIDR
}
