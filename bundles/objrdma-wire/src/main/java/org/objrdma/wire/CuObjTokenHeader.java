package org.objrdma.wire;

import java.util.Objects;
import java.util.Optional;

/**
 * The value of an {@code x-amz-rdma-token} request header carrying a cuObject descriptor, in every form seen
 * in the field:
 * <ul>
 *   <li>{@code <descriptor>} — the 81 characters as {@code cuMemObjGetRDMAToken} returned them (MinIO sends
 *       this; field 1 and 2 already give address and size);</li>
 *   <li>{@code <descriptor>:<addr>:<size>} — with the transfer's start address and size appended, each 1 to 16
 *       hex digits (NIXL, older MinIO);</li>
 *   <li>either of them followed by one {@code ;} (tolerated, as NIXL asks servers to).</li>
 * </ul>
 * Anything else is refused: the HTTP layer passes the field value without surrounding whitespace.
 *
 * @param descriptor the descriptor, which {@code handleGetObject}/{@code handlePutObject} take as {@code rdma_descr}
 * @param span       the appended start address and size, if present
 */
public record CuObjTokenHeader(CuObjDescriptor descriptor, Optional<Span> span) {

    /**
     * The transfer the client appended to the descriptor.
     *
     * @param address remote start address
     * @param size    bytes
     */
    public record Span(long address, long size) {
        public Span {
            Ranges.require(refusal(address, size));
        }

        /** {@link TokenError#BAD_SIZE} for a size with the top bit set (all ones included), an all-ones address, a wrap. */
        static <T> TokenResult<T> refusal(long address, long size) {
            return Ranges.range("the span", address, size);
        }

        /**
         * The optional {@code :addr:size} suffix of both header forms, in {@code value[prefix, end)}: empty when
         * nothing follows the token; {@link TokenError#TRAILING_CHARACTERS} if it does not start with {@code :}
         * ({@code after} names what may follow); {@link TokenError#BAD_SUFFIX} unless two fields of 1..16 hex
         * digits; then {@link #refusal}.
         */
        static TokenResult<Optional<Span>> parseSuffix(String value, int prefix, int end, String after) {
            if (end == prefix) {
                return TokenResult.ok(Optional.empty());
            }
            if (value.charAt(prefix) != ':') {
                return TokenResult.error(TokenError.TRAILING_CHARACTERS, after);
            }
            int from = prefix + 1;
            int colon = value.indexOf(':', from);
            if (colon < 0 || colon >= end) {
                return TokenResult.error(TokenError.BAD_SUFFIX, "the suffix must be ':addr:size'");
            }
            if (!field(value, from, colon) || !field(value, colon + 1, end)) {
                return TokenResult.error(TokenError.BAD_SUFFIX, "addr and size must each be 1 to 16 hex digits");
            }
            long address = Hex.value(value, from, colon);
            long size = Hex.value(value, colon + 1, end);
            TokenResult<Optional<Span>> refused = refusal(address, size);
            return refused != null ? refused : TokenResult.ok(Optional.of(new Span(address, size)));
        }

        private static boolean field(String s, int from, int to) {
            return to - from >= 1 && to - from <= 16 && Hex.isHex(s, from, to);
        }

        /** Appends {@code :addr:size} with 16 digits each. */
        void appendTo(StringBuilder b) {
            b.append(':');
            Hex.append(b, address, 16);
            b.append(':');
            Hex.append(b, size, 16);
        }
    }

    public CuObjTokenHeader {
        Objects.requireNonNull(descriptor, "descriptor");
        Objects.requireNonNull(span, "span");
    }

    /**
     * Parses a header value. Checks, in order: not empty; the descriptor as {@link CuObjDescriptor#parse} does
     * (a value shorter than 81 characters, after an optional final {@code ;}, is {@link TokenError#WRONG_LENGTH});
     * what follows the descriptor must be nothing or {@code :} ({@link TokenError#TRAILING_CHARACTERS});
     * the suffix must be exactly two fields of 1..16 hex digits ({@link TokenError#BAD_SUFFIX}) naming a span that
     * does not wrap, with neither field all ones nor a size above 2^63 - 1 ({@link TokenError#BAD_SIZE}).
     */
    public static TokenResult<CuObjTokenHeader> parse(String value) {
        if (value == null || value.isEmpty()) {
            return TokenResult.error(TokenError.EMPTY, "no x-amz-rdma-token value");
        }
        int end = value.length();
        if (value.charAt(end - 1) == ';') {
            end--;
        }
        if (end < CuObjDescriptor.LENGTH) {
            return TokenResult.error(TokenError.WRONG_LENGTH, "a cuObject descriptor is " + CuObjDescriptor.LENGTH
                    + " characters, this value " + end + (end < value.length() ? " before its ';'" : ""));
        }
        TokenResult<CuObjDescriptor> d = CuObjDescriptor.parseAt(value);
        if (!d.isOk()) {
            return TokenResult.error(d.error(), d.detail());
        }
        CuObjDescriptor descriptor = d.value();
        return Span.parseSuffix(value, CuObjDescriptor.LENGTH, end,
                "after the descriptor only ':addr:size' and a final ';' may follow")
                .map(span -> new CuObjTokenHeader(descriptor, span));
    }

    /** The header value: the descriptor, then {@code :addr:size} with 16 digits each if a span is present. */
    public String format() {
        StringBuilder b = new StringBuilder(CuObjDescriptor.LENGTH + 34).append(descriptor.format());
        span.ifPresent(s -> s.appendTo(b));
        return b.toString();
    }
}
