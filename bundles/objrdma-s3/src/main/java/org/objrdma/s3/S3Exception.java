package org.objrdma.s3;

import java.util.Objects;

/**
 * A request failed with an S3 error; the gateway answers it as S3 XML with {@link #status()}. Codes come
 * from {@link S3ErrorCode} or, for store failures, from the store SPI's own S3 code and status.
 */
public class S3Exception extends Exception {

    private static final long serialVersionUID = 1L;

    private final String code;
    private final int status;

    public S3Exception(String code, int status, String message) {
        super(Objects.requireNonNull(message, "message"));
        this.code = Objects.requireNonNull(code, "code");
        this.status = status;
    }

    public S3Exception(S3ErrorCode code, String message) {
        this(code.code(), code.status(), message == null ? code.defaultMessage() : message);
    }

    public S3Exception(S3ErrorCode code) {
        this(code, null);
    }

    /** The {@code Code} element, e.g. {@code NoSuchKey}. */
    public String code() {
        return code;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }
}
