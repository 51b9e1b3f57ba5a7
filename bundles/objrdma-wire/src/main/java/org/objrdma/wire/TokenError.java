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
    BAD_KEY
}
