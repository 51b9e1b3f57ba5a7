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
        if (value.length() == RcToken.LENGTH) {
            return TokenResult.ok(new RcTokenHeader(t.value(), Optional.empty()));
        }
        if (value.charAt(RcToken.LENGTH) != ':') {
            return TokenResult.error(TokenError.TRAILING_CHARACTERS, "after the token only ':addr:size' may follow");
        }
        int from = RcToken.LENGTH + 1;
        int colon = value.indexOf(':', from);
        int end = value.length();
        if (colon < 0 || colon - from < 1 || colon - from > 16 || end - colon - 1 < 1 || end - colon - 1 > 16
                || !Hex.isHex(value, from, colon) || !Hex.isHex(value, colon + 1, end)) {
            return TokenResult.error(TokenError.BAD_SUFFIX, "the suffix must be ':addr:size', each 1 to 16 hex digits");
        }
        RcToken token = t.value();
        return CuObjTokenHeader.Span.parsed(value, from, colon, end, span -> new RcTokenHeader(token, Optional.of(span)));
    }

    /** The header value: the token, then {@code :addr:size} with 16 digits each if a span is present. */
    public String format() {
        StringBuilder b = new StringBuilder(RcToken.LENGTH + 34).append(token.format());
        span.ifPresent(s -> {
            b.append(':');
            Hex.append(b, s.address(), 16);
            b.append(':');
            Hex.append(b, s.size(), 16);
        });
        return b.toString();
    }
}
