package org.objrdma.api.session;

import java.util.Objects;
import java.util.function.Function;

/**
 * A status and, when it is {@link RcStatus#OK}, a value: how calls that return data report, instead
 * of throwing for expected failures.
 *
 * @param status what happened
 * @param value  the result; null unless {@code status} is OK
 * @param <T>    type of the value
 */
public record SessionResult<T>(RcStatus status, T value) {
    public SessionResult {
        Objects.requireNonNull(status, "status");
        if (status.isOk() != (value != null)) {
            throw new IllegalArgumentException("a value exactly when status is OK");
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

    /** The same status with the value mapped. */
    public <U> SessionResult<U> map(Function<? super T, ? extends U> f) {
        return status.isOk() ? ok(f.apply(value)) : failed(status);
    }
}
