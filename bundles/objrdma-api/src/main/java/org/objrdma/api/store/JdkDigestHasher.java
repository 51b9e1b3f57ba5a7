package org.objrdma.api.store;

import java.nio.ByteBuffer;
import java.security.MessageDigest;

/** A JDK {@link MessageDigest} (SHA-1, SHA-256); {@link #digest()} leaves the running state alone. */
final class JdkDigestHasher implements ChecksumHasher {
    private final MessageDigest md;

    JdkDigestHasher(MessageDigest md) {
        this.md = md;
    }

    @Override
    public void update(byte[] bytes, int offset, int length) {
        md.update(bytes, offset, length);
    }

    @Override
    public void update(ByteBuffer bytes) {
        md.update(bytes);
    }

    @Override
    public byte[] digest() {
        try {
            return ((MessageDigest) md.clone()).digest();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA digests are cloneable", e);
        }
    }
}
