package org.objrdma.wire;

import java.util.Objects;
import java.util.Optional;

/**
 * The PREPARE {@code x-amz-rdma-token} value of hipobj-rc-v2: an {@link RcToken}, optionally extended as
 * {@code <88 hex>:<addr>:<size>} with each suffix field 1 to 16 hex digits. No trailing {@code ;} and no
 * whitespace.
 *
 * @param token the token
 * @param span  the appended client buffer address and size, if present
 */
public record RcTokenHeader(RcToken token, Optional<CuObjTokenHeader.Span> span) {

    /**
     * objrdma's header beside the token of a TCP-transport endpoint: its channel key in hex (16..64 bytes), which
     * the 88-hex token has no room for; the client's in PREPARE, the server's in the PREPARE answer. Servers and
     * clients take the name from here.
     */
    public static final String CHANNEL_KEY_HEADER = "x-amz-rdma-channel-key";

    public RcTokenHeader {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(span, "span");
    }

    /**
     * Parses a header value. Checks, in order: not empty; at least 88 characters ({@link TokenError#WRONG_LENGTH});
     * the token as {@link RcToken#parse}; nothing or {@code :} after it ({@link TokenError#TRAILING_CHARACTERS});
     * a suffix of exactly two fields of 1..16 hex digits ({@link TokenError#BAD_SUFFIX}) naming a span the way
     * {@link CuObjTokenHeader#parse} requires ({@link TokenError#BAD_SIZE}).
     */
    public static TokenResult<RcTokenHeader> parse(String value) {
        if (value == null || value.isEmpty()) {
            return TokenResult.error(TokenError.EMPTY, "no x-amz-rdma-token value");
        }
        if (value.length() < RcToken.LENGTH) {
            return TokenResult.error(TokenError.WRONG_LENGTH,
                    "an RC token is " + RcToken.LENGTH + " hex characters, this value " + value.length());
        }
        TokenResult<RcToken> t = RcToken.parseAt(value);
        if (!t.isOk()) {
            return TokenResult.error(t.error(), t.detail());
        }
        RcToken token = t.value();
        return CuObjTokenHeader.Span.parseSuffix(value, RcToken.LENGTH, value.length(),
                "after the token only ':addr:size' may follow").map(span -> new RcTokenHeader(token, span));
    }

    /** The header value: the token, then {@code :addr:size} with 16 digits each if a span is present. */
    public String format() {
        StringBuilder b = new StringBuilder(RcToken.LENGTH + 34).append(token.format());
        span.ifPresent(s -> s.appendTo(b));
        return b.toString();
    }
}
