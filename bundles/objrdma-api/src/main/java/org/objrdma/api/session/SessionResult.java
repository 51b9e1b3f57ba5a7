package org.objrdma.api.session;

import java.util.Objects;
import java.util.function.Function;

/**
 * A status and, when it is {@link RcStatus#OK}, a value: how calls that return data report, instead
 * of throwing for expected failures.
 *
 * <p>A failure may carry a value too when the call has something to say about how it failed: a READY
 * whose data phase ran and failed answers {@link RcStatus#WIRE} with the {@link ReadyResponse} naming
 * the outcome (TIMEOUT, VERIFY_FAIL, WIRE_FAIL), so a route can tell 504 from 502 from 409. Test
 * {@link #isOk()}, never {@code value() != null}, for success.
 *
 * @param status what happened
 * @param value  the result when OK (never null then); on a failure null or a description of it
 * @param <T>    type of the value
 */
public record SessionResult<T>(RcStatus status, T value) {
    public SessionResult {
        Objects.requireNonNull(status, "status");
        if (status.isOk() && value == null) {
            throw new IllegalArgumentException("an OK result needs a value");
        }
    }

    public static <T> SessionResult<T> ok(T value) {
        return new SessionResult<>(RcStatus.OK, Objects.requireNonNull(value, "value"));
    }

    public static <T> SessionResult<T> failed(RcStatus status) {
        if (status.isOk()) {
            throw new IllegalArgumentException("failed() needs an error status");
        }
        return new SessionResult<>(status, null);
    }

    /** A failure that says how it failed (READY: the response with the outcome). */
    public static <T> SessionResult<T> failed(RcStatus status, T detail) {
        if (status.isOk()) {
            throw new IllegalArgumentException("failed() needs an error status");
        }
        return new SessionResult<>(status, Objects.requireNonNull(detail, "detail"));
    }

    /** The failure's description when it has one; empty on OK and on failures without one. */
    public java.util.Optional<T> failureDetail() {
        return status.isOk() ? java.util.Optional.empty() : java.util.Optional.ofNullable(value);
    }

    public boolean isOk() {
        return status.isOk();
    }

    /** The value; throws {@link IllegalStateException} naming the status when there is none. */
    public T orElseThrow() {
        if (!status.isOk()) {
            throw new IllegalStateException("session call failed: " + status + " (" + status.description() + ")");
        }
        return value;
    }

    /** The same status with the value mapped; a failure's description is dropped. */
    public <U> SessionResult<U> map(Function<? super T, ? extends U> f) {
        return status.isOk() ? ok(f.apply(value)) : failed(status);
    }
}
