package org.objrdma.store.s3.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The gateway's users, {@code ACCESSKEY:SECRET[,...]}, with the same syntax as the embedded store's
 * {@code credentials} (that parser is private to {@code objrdma-store-fs}, so the rule is restated here).
 */
final class UserCredentials {
    private static final Pattern ACCESS_KEY = Pattern.compile("[A-Za-z0-9_.\\-]{3,128}");
    private static final Pattern SECRET = Pattern.compile("[\\x21-\\x2B\\x2D-\\x7E]{8,256}");

    private final Map<String, String> secrets;

    private UserCredentials(Map<String, String> secrets) {
        this.secrets = Collections.unmodifiableMap(secrets);
    }

    static UserCredentials of(Map<String, String> secrets) {
        StringBuilder spec = new StringBuilder();
        secrets.forEach((k, v) -> spec.append(spec.isEmpty() ? "" : ",").append(k).append(':').append(v));
        return parse(spec.toString());
    }

    /** @throws IllegalArgumentException naming the malformed entry by position (never printing a secret) */
    static UserCredentials parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("credentials: at least one ACCESSKEY:SECRET is required");
        }
        Map<String, String> out = new LinkedHashMap<>();
        int index = 0;
        for (String entry : spec.split(",", -1)) {
            index++;
            String e = entry.strip();
            int colon = e.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("credentials: entry " + index + " is not ACCESSKEY:SECRET");
            }
            String key = e.substring(0, colon);
            if (!ACCESS_KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("credentials: entry " + index
                        + ": the access key must be 3..128 of A-Z a-z 0-9 _ - .");
            }
            if (!SECRET.matcher(e.substring(colon + 1)).matches()) {
                throw new IllegalArgumentException("credentials: entry " + index + " (" + key
                        + "): the secret must be 8..256 printable ASCII characters without comma or space");
            }
            if (out.putIfAbsent(key, e.substring(colon + 1)) != null) {
                throw new IllegalArgumentException("credentials: access key " + key + " appears twice");
            }
        }
        return new UserCredentials(out);
    }

    Optional<String> secret(String accessKeyId) {
        return Optional.ofNullable(accessKeyId == null ? null : secrets.get(accessKeyId));
    }

    boolean knows(String accessKeyId) {
        return accessKeyId != null && secrets.containsKey(accessKeyId);
    }

    int size() {
        return secrets.size();
    }

    @Override
    public String toString() {
        return "UserCredentials" + secrets.keySet();
    }
}
