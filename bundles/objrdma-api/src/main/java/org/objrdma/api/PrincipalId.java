package org.objrdma.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The identity a request acts for: 32 bytes, the SHA-256 of the canonical principal string.
 *
 * <p>Owner checks compare this value, never a display name, so that a session prepared with one
 * credential cannot be driven with another that happens to share a user name (the rule of
 * {@code rc_principal_id} in {@code rc_server_abi.h}). Instances are immutable; the bytes are copied
 * in and out.
 */
public final class PrincipalId {
    /** Length of the identity in bytes. */
    public static final int LENGTH = 32;

    private final byte[] id;
    private final int hash;

    private PrincipalId(byte[] id) {
        this.id = id;
        this.hash = Arrays.hashCode(id);
    }

    /**
     * Wraps exactly {@value #LENGTH} bytes.
     *
     * @throws IllegalArgumentException if {@code bytes} is not 32 bytes long
     */
    public static PrincipalId of(byte[] bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("principal id must be " + LENGTH + " bytes");
        }
        return new PrincipalId(bytes.clone());
    }

    /** The SHA-256 of the UTF-8 bytes of {@code canonical}. */
    public static PrincipalId fromCanonical(String canonical) {
        if (canonical == null || canonical.isEmpty()) {
            throw new IllegalArgumentException("canonical principal string must not be empty");
        }
        try {
            return new PrincipalId(MessageDigest.getInstance("SHA-256")
                    .digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }

    /**
     * The identity of an S3 credential, SHA-256 of {@code accessKey + ":" + secretKey}, as the
     * hipobj-rc-v2 routes compute it.
     */
    public static PrincipalId fromCredentials(String accessKey, String secretKey) {
        if (accessKey == null || accessKey.isEmpty() || secretKey == null) {
            throw new IllegalArgumentException("access key must not be empty and secret key must not be null");
        }
        return fromCanonical(accessKey + ":" + secretKey);
    }

    /** A copy of the 32 bytes. */
    public byte[] bytes() {
        return id.clone();
    }

    /** Lower-case hex of the 32 bytes. */
    public String toHex() {
        return HexFormat.of().formatHex(id);
    }

    /** Constant-time comparison, so a timing probe learns nothing about a stored owner. */
    @Override
    public boolean equals(Object o) {
        return o instanceof PrincipalId other && MessageDigest.isEqual(id, other.id);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Only a prefix, so logs never carry the full identity. */
    @Override
    public String toString() {
        return "PrincipalId[" + toHex().substring(0, 12) + "…]";
    }
}
