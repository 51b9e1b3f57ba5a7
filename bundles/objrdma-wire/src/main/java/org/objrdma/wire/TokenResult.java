package org.objrdma.wire;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The outcome of a parse: a value, or a {@link TokenError} with a sentence saying what was wrong. Parsers of
 * this package return it instead of throwing, so that bad input from the network never becomes an exception.
 *
 * @param <T> the parsed value's type
 */
public final class TokenResult<T> {
    private final T value;
    private final TokenError error;
    private final String detail;

    private TokenResult(T value, TokenError error, String detail) {
        this.value = value;
        this.error = error;
        this.detail = detail;
    }

    /** A success. */
    public static <T> TokenResult<T> ok(T value) {
        return new TokenResult<>(Objects.requireNonNull(value, "value"), null, "");
    }

    /** A refusal. */
    public static <T> TokenResult<T> error(TokenError error, String detail) {
        return new TokenResult<>(null, Objects.requireNonNull(error, "error"), Objects.requireNonNull(detail, "detail"));
    }

    /** True if a value was parsed. */
    public boolean isOk() {
        return error == null;
    }

    /**
     * The parsed value.
     *
     * @throws IllegalStateException if this is a refusal (a programming error: check {@link #isOk()} first)
     */
    public T value() {
        if (error != null) {
            throw new IllegalStateException("no value: " + error + ": " + detail);
        }
        return value;
    }

    /** The refusal, or null for a success. */
    public TokenError error() {
        return error;
    }

    /** What was wrong, empty for a success. */
    public String detail() {
        return detail;
    }

    /** The value, if any. */
    public Optional<T> toOptional() {
        return Optional.ofNullable(value);
    }

    /** The same refusal, or {@code f} applied to the value. */
    public <U> TokenResult<U> map(Function<? super T, ? extends U> f) {
        return error == null ? ok(f.apply(value)) : error(error, detail);
    }

    /** The same refusal, or the result of {@code f} on the value. */
    public <U> TokenResult<U> flatMap(Function<? super T, TokenResult<U>> f) {
        return error == null ? f.apply(value) : error(error, detail);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenResult<?> r && Objects.equals(value, r.value) && error == r.error
                && detail.equals(r.detail);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, error, detail);
    }

    @Override
    public String toString() {
        return error == null ? "TokenResult[" + value + "]" : "TokenResult[" + error + ": " + detail + "]";
    }
}
