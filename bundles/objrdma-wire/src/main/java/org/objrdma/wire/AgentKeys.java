package org.objrdma.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The agent key of the cuObject flow over the TCP transport: the access key a client opens its memory agent
 * channel with ({@code ChannelOptions.accessKey}) and the server presents when it connects to that channel.
 * It stands in for cuObject's DC key, which "must match between client and server", but it is 16 to 64 random
 * bytes instead of a 32-bit number, and it never travels in a descriptor.
 *
 * <p>Both sides are configured with the same key. {@link #fromDcKey(long)} exists only for compatibility
 * with deployments that configure nothing but a DC key: the key it derives is exactly as guessable as the
 * DC key (32 bits at best; the cuObject default {@code 0xffeeddcc} is public), so servers accept it only when
 * explicitly told to.
 */
public final class AgentKeys {
    /** Shortest key: 16 bytes (the TCP transport's minimum). */
    public static final int MIN_LENGTH = 16;
    /** Longest key: 64 bytes. */
    public static final int MAX_LENGTH = 64;
    /** Length of {@link #generate()}d and {@link #fromDcKey derived} keys. */
    public static final int DEFAULT_LENGTH = 32;

    private static final byte[] DC_KEY_LABEL = "objrdma cuobj agent key from dc_key v1".getBytes(StandardCharsets.US_ASCII);
    /**
     * The label {@link #forPrincipal} MACs under the principal's secret; fixed, part of the protocol: a client and
     * a server derive the same key only with this exact label.
     */
    public static final String PRINCIPAL_LABEL = "objrdma cuobj agent key for principal v1";

    private static final SecureRandom RANDOM = new SecureRandom();

    private AgentKeys() {
    }

    /** A fresh random key of {@value #DEFAULT_LENGTH} bytes. */
    public static byte[] generate() {
        byte[] key = new byte[DEFAULT_LENGTH];
        RANDOM.nextBytes(key);
        return key;
    }

    /**
     * The compatibility key of a DC key: SHA-256 over a fixed label and the 8 big-endian bytes of {@code dcKey}.
     * Deterministic, so a client and a server configured with the same DC key agree; weak, see the class comment.
     */
    public static byte[] fromDcKey(long dcKey) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(DC_KEY_LABEL);
            sha.update(ByteBuffer.allocate(Long.BYTES).putLong(dcKey).array());
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The agent key of one principal: HMAC-SHA256, keyed with the UTF-8 bytes of the principal's S3 secret access
     * key, of the ASCII bytes of {@link #PRINCIPAL_LABEL} — 32 bytes. Client and server both know the secret, so
     * both derive it without exchanging anything; the server dials a client's agent only with the key of the
     * principal whose request it serves, so a client cannot take another principal's lane. The secret is not
     * recoverable from the key (HMAC is one-way); a new secret gives a new key.
     *
     * @throws IllegalArgumentException a null or empty secret
     */
    public static byte[] forPrincipal(String secretAccessKey) {
        if (secretAccessKey == null || secretAccessKey.isEmpty()) {
            throw new IllegalArgumentException("no secret access key");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secretAccessKey.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(PRINCIPAL_LABEL.getBytes(StandardCharsets.US_ASCII));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }

    /**
     * Parses a configured key: {@code hex:<digits>}, {@code base64:<text>}, or bare text, which is read as hex if
     * it consists of an even number of hex digits and as base64 (standard or URL-safe alphabet) otherwise. The
     * key must be {@value #MIN_LENGTH} to {@value #MAX_LENGTH} bytes. Refusals are {@link TokenError#EMPTY} and
     * {@link TokenError#BAD_KEY}; the detail never repeats the key.
     */
    public static TokenResult<byte[]> parse(String text) {
        if (text == null || text.isBlank()) {
            return TokenResult.error(TokenError.EMPTY, "no agent key");
        }
        String t = text.strip();
        byte[] key;
        if (t.regionMatches(true, 0, "hex:", 0, 4)) {
            key = hex(t.substring(4));
            if (key == null) {
                return TokenResult.error(TokenError.BAD_KEY, "the hex: key is not an even number of hex digits");
            }
        } else if (t.regionMatches(true, 0, "base64:", 0, 7)) {
            key = base64(t.substring(7));
            if (key == null) {
                return TokenResult.error(TokenError.BAD_KEY, "the base64: key is not valid base64");
            }
        } else {
            key = hex(t);
            if (key == null) {
                key = base64(t);
            }
            if (key == null) {
                return TokenResult.error(TokenError.BAD_KEY, "the key is neither hex digits nor base64");
            }
        }
        if (key.length < MIN_LENGTH || key.length > MAX_LENGTH) {
            return TokenResult.error(TokenError.BAD_KEY,
                    "an agent key is " + MIN_LENGTH + " to " + MAX_LENGTH + " bytes, this one " + key.length);
        }
        return TokenResult.ok(key);
    }

    /** Lower-case hex of {@code key}, the form {@link #parse} reads back. */
    public static String toHex(byte[] key) {
        return HexFormat.of().formatHex(key);
    }

    private static byte[] hex(String s) {
        if (s.isEmpty() || (s.length() & 1) != 0 || !Hex.isHex(s, 0, s.length())) {
            return null;
        }
        return HexFormat.of().parseHex(s);
    }

    private static byte[] base64(String s) {
        if (s.isEmpty()) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException notStandard) {
            try {
                return Base64.getUrlDecoder().decode(s);
            } catch (IllegalArgumentException notUrlSafe) {
                return null;
            }
        }
    }
}
