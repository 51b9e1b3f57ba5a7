package org.objrdma.wire;

import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * S3 users as objrdma configures them: access key id → secret, in the form {@code ACCESSKEY:SECRET[,...]} (the
 * embedded store's and the S3 store adapter's {@code credentials}, the shell's {@code rdma:credentials}). The one
 * place the rules live: access keys are 3..128 of {@code A-Z a-z 0-9 _ - .}; secrets 8..256 printable ASCII
 * characters without comma or space, so the list stays parseable; an access key appears once.
 *
 * <p>{@link #toString()} names the access keys only; no message here ever prints a secret.
 *
 * @since 1.3
 */
public final class UserCredentials {
    private static final Pattern ACCESS_KEY = Pattern.compile("[A-Za-z0-9_.\\-]{3,128}");
    private static final Pattern SECRET = Pattern.compile("[\\x21-\\x2B\\x2D-\\x7E]{8,256}");
    private static final String KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    private static final String SECRET_ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    /** The rule of {@link #isAccessKey}, as the refusals word it. */
    public static final String ACCESS_KEY_RULE = "3..128 of A-Z a-z 0-9 _ - .";

    private final Map<String, String> secrets;

    private UserCredentials(Map<String, String> secrets) {
        this.secrets = Collections.unmodifiableMap(secrets);
    }

    /**
     * The users of {@code secrets}, checked as {@link #parse} checks them.
     *
     * @throws IllegalArgumentException as {@link #parse}
     */
    public static UserCredentials of(Map<String, String> secrets) {
        return parse(format(secrets));
    }

    /**
     * Parses the configuration form; {@code null}, empty or blank gives no users.
     *
     * @throws IllegalArgumentException naming the malformed entry by position (never printing a secret)
     */
    public static UserCredentials parse(String spec) {
        Map<String, String> out = new LinkedHashMap<>();
        if (spec != null && !spec.isBlank()) {
            int index = 0;
            for (String entry : spec.split(",", -1)) {
                index++;
                String e = entry.strip();
                int colon = e.indexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException("entry " + index + " is not ACCESSKEY:SECRET");
                }
                String key = e.substring(0, colon);
                String secret = e.substring(colon + 1);
                if (!isAccessKey(key)) {
                    throw new IllegalArgumentException("entry " + index + ": the access key must be " + ACCESS_KEY_RULE);
                }
                if (!SECRET.matcher(secret).matches()) {
                    throw new IllegalArgumentException("entry " + index + " (" + key
                            + "): the secret must be 8..256 printable ASCII characters without comma or space");
                }
                if (out.putIfAbsent(key, secret) != null) {
                    throw new IllegalArgumentException("entry " + index + ": access key " + key + " appears twice");
                }
            }
        }
        return new UserCredentials(out);
    }

    /** One fresh user: a 20-character key id and a 40-character secret, like AWS's. */
    public static UserCredentials generate(SecureRandom random) {
        return new UserCredentials(Map.of(randomAccessKey(random), randomSecret(random)));
    }

    /** A fresh 20-character access key id (base32 upper case, like AWS's). */
    public static String randomAccessKey(SecureRandom random) {
        return randomString(random, KEY_ALPHABET, 20);
    }

    /** A fresh 40-character secret (base64 alphabet, like AWS's). */
    public static String randomSecret(SecureRandom random) {
        return randomString(random, SECRET_ALPHABET, 40);
    }

    /** True if {@code accessKey} follows the access-key rule ({@value #ACCESS_KEY_RULE}). */
    public static boolean isAccessKey(String accessKey) {
        return accessKey != null && ACCESS_KEY.matcher(accessKey).matches();
    }

    /** The configuration form of {@code secrets}, in their iteration order, with the secrets. */
    public static String format(Map<String, String> secrets) {
        StringBuilder sb = new StringBuilder();
        secrets.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append(':').append(v));
        return sb.toString();
    }

    private static String randomString(SecureRandom random, String alphabet, int length) {
        Objects.requireNonNull(random, "random");
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** The secret of {@code accessKeyId}, if it is a user here. */
    public Optional<String> secret(String accessKeyId) {
        return Optional.ofNullable(accessKeyId == null ? null : secrets.get(accessKeyId));
    }

    /** True if {@code accessKeyId} is a user here. */
    public boolean knows(String accessKeyId) {
        return accessKeyId != null && secrets.containsKey(accessKeyId);
    }

    public boolean isEmpty() {
        return secrets.isEmpty();
    }

    public int size() {
        return secrets.size();
    }

    /** Access key → secret, in configured order, unmodifiable. */
    public Map<String, String> asMap() {
        return secrets;
    }

    /** The configuration form, with secrets: only for writing the configuration back. */
    public String toSpec() {
        return format(secrets);
    }

    /** The access keys only, never a secret. */
    @Override
    public String toString() {
        return "UserCredentials" + secrets.keySet();
    }
}
