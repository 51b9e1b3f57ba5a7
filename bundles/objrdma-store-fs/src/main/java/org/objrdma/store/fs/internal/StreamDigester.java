package org.objrdma.store.fs.internal;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.ChecksumHasher;
import org.objrdma.api.store.Digests;

/** MD5 plus the requested checksums, fed while the bytes stream through, never by re-reading them. */
final class StreamDigester {
    private final MessageDigest md5 = newMd5();
    private final Map<ChecksumAlgorithm, ChecksumHasher> hashers = new EnumMap<>(ChecksumAlgorithm.class);
    private long length;

    StreamDigester(Set<ChecksumAlgorithm> algorithms) {
        for (ChecksumAlgorithm a : algorithms) {
            hashers.put(a, a.newHasher());
        }
    }

    void update(byte[] bytes, int offset, int count) {
        md5.update(bytes, offset, count);
        for (ChecksumHasher h : hashers.values()) {
            h.update(bytes, offset, count);
        }
        length += count;
    }

    /** Consumes nothing: the buffer's position is left where it was. */
    void update(ByteBuffer bytes) {
        int count = bytes.remaining();
        md5.update(bytes.duplicate());
        for (ChecksumHasher h : hashers.values()) {
            h.update(bytes.duplicate());
        }
        length += count;
    }

    long length() {
        return length;
    }

    Digests finish() {
        Map<ChecksumAlgorithm, String> checksums = new EnumMap<>(ChecksumAlgorithm.class);
        hashers.forEach((a, h) -> checksums.put(a, h.base64()));
        return new Digests(length, HexFormat.of().formatHex(md5.digest()), checksums);
    }

    static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JDK", e);
        }
    }
}
