package org.objrdma.api.store;

import java.nio.ByteBuffer;
import java.util.Base64;

/** A running checksum over a byte stream; obtained from {@link ChecksumAlgorithm#newHasher()}. */
public interface ChecksumHasher {

    void update(byte[] bytes, int offset, int length);

    /** Consumes the buffer's remaining bytes. */
    void update(ByteBuffer bytes);

    /** The raw checksum (big-endian for CRCs) of everything so far. */
    byte[] digest();

    /** {@link #digest()} in base64, as S3 prints it. */
    default String base64() {
        return Base64.getEncoder().encodeToString(digest());
    }
}
