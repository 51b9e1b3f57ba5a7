package org.objrdma.store.s3.internal;

import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.ChecksumHasher;
import org.objrdma.api.store.Digests;

/** MD5 and the requested checksums of the bytes of one put or part, computed as they pass. */
final class Digester {
    private final MessageDigest md5;
    private final Map<ChecksumAlgorithm, ChecksumHasher> hashers = new EnumMap<>(ChecksumAlgorithm.class);
    private long length;

    Digester(Set<ChecksumAlgorithm> algorithms) {
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JDK", e);
        }
        for (ChecksumAlgorithm a : algorithms) {
            hashers.put(a, a.newHasher());
        }
    }

    void update(byte[] b, int off, int len) {
        md5.update(b, off, len);
        for (ChecksumHasher h : hashers.values()) {
            h.update(b, off, len);
        }
        length += len;
    }

    /** Digests a segment through its ByteBuffer view (no copy). */
    void update(MemorySegment segment) {
        for (long at = 0; at < segment.byteSize(); at += Integer.MAX_VALUE - 8) {
            MemorySegment slice = segment.asSlice(at, Math.min(Integer.MAX_VALUE - 8, segment.byteSize() - at));
            md5.update(slice.asByteBuffer());
            for (ChecksumHasher h : hashers.values()) {
                h.update(slice.asByteBuffer());
            }
        }
        length += segment.byteSize();
    }

    long length() {
        return length;
    }

    Digests finish() {
        Map<ChecksumAlgorithm, String> values = new EnumMap<>(ChecksumAlgorithm.class);
        hashers.forEach((a, h) -> values.put(a, h.base64()));
        return new Digests(length, HexFormat.of().formatHex(md5.digest()), values);
    }
}
