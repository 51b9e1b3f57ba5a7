package org.objrdma.store.fs.internal;

import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The embedded store's users: access key id → secret, parsed from {@code ACCESSKEY:SECRET[,...]}.
 * Access keys are 3..128 of {@code A-Z a-z 0-9 _ - .}; secrets 8..256 printable ASCII characters
 * without comma, so the list stays parseable.
 */
public final class Credentials {
    private static final Pattern ACCESS_KEY = Pattern.compile("[A-Za-z0-9_.\\-]{3,128}");
    private static final Pattern SECRET = Pattern.compile("[\\x21-\\x2B\\x2D-\\x7E]{8,256}");
    private static final String KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    private static final String SECRET_ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    private final Map<String, String> secrets;

    private Credentials(Map<String, String> secrets) {
        this.secrets = Collections.unmodifiableMap(secrets);
    }

    public static Credentials of(Map<String, String> secrets) {
        return parse(new Credentials(new LinkedHashMap<>(secrets)).toSpec());
    }

    /**
     * Parses the configuration form; empty or blank gives no users.
     *
     * @throws IllegalArgumentException naming the entry that is malformed (never printing a secret)
     */
    public static Credentials parse(String spec) {
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
                if (!ACCESS_KEY.matcher(key).matches()) {
                    throw new IllegalArgumentException("entry " + index
                            + ": the access key must be 3..128 of A-Z a-z 0-9 _ - .");
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
        return new Credentials(out);
    }

    /** One fresh user: a 20-character key id and a 40-character secret, like AWS's. */
    public static Credentials generate(SecureRandom random) {
        return new Credentials(Map.of(randomString(random, KEY_ALPHABET, 20), randomString(random, SECRET_ALPHABET, 40)));
    }

    private static String randomString(SecureRandom random, String alphabet, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    public Optional<String> secret(String accessKeyId) {
        return Optional.ofNullable(accessKeyId == null ? null : secrets.get(accessKeyId));
    }

    public boolean isEmpty() {
        return secrets.isEmpty();
    }

    public Map<String, String> asMap() {
        return secrets;
    }

    /** The configuration form, with secrets: only for writing the configuration back. */
    public String toSpec() {
        StringBuilder sb = new StringBuilder();
        secrets.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append(':').append(v));
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Credentials" + secrets.keySet();
    }
}
