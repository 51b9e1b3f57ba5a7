package org.objrdma.store.s3.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.objrdma.api.store.ChecksumAlgorithm;

/**
 * How the SPI's per-object facts travel in S3 user metadata. S3 stores at most one additional checksum per
 * object; the SPI may ask for all five, so the ones the adapter computed ride in the reserved entry
 * {@value #CHECKSUMS} ({@code CRC32=..;SHA256=..}), which is stripped from what users see. Metadata names
 * and values outside printable ASCII are carried as RFC 2047 {@code =?UTF-8?B?..?=} words (S3 itself
 * answers non-ASCII values that way), names additionally under {@value #ENCODED_NAME}.
 */
final class ObjectMetadata {
    static final String CHECKSUMS = "objrdma-checksums";
    static final String ENCODED_NAME = "objrdma-n-";

    private ObjectMetadata() {
    }

    static Map<String, String> toRemote(Map<String, String> user, Map<ChecksumAlgorithm, String> checksums) {
        Map<String, String> out = new LinkedHashMap<>();
        user.forEach((name, value) -> {
            if (name.equals(CHECKSUMS) || name.startsWith(ENCODED_NAME)) {
                return;
            }
            String remoteName = isPlain(name) ? name
                    : ENCODED_NAME + Base64.getUrlEncoder().withoutPadding()
                            .encodeToString(name.getBytes(StandardCharsets.UTF_8)).toLowerCase(java.util.Locale.ROOT);
            if (!isPlain(name)) {
                // base64url lower-cased is lossy; keep the exact name with the value instead
                out.put(remoteName, encode(name) + ":" + encode(value));
            } else {
                out.put(remoteName, encode(value));
            }
        });
        if (!checksums.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            checksums.forEach((a, v) -> sb.append(sb.isEmpty() ? "" : ";").append(a.s3Name()).append('=').append(v));
            out.put(CHECKSUMS, sb.toString());
        }
        return out;
    }

    static Map<String, String> userFromRemote(Map<String, String> remote) {
        Map<String, String> out = new TreeMap<>();
        remote.forEach((name, value) -> {
            String lower = name.toLowerCase(java.util.Locale.ROOT);
            if (lower.equals(CHECKSUMS)) {
                return;
            }
            if (lower.startsWith(ENCODED_NAME)) {
                int colon = value.indexOf(":=?");
                if (colon > 0) {
                    out.put(decode(value.substring(0, colon)), decode(value.substring(colon + 1)));
                    return;
                }
            }
            out.put(lower, decode(value));
        });
        return out;
    }

    static Map<ChecksumAlgorithm, String> checksumsFromRemote(Map<String, String> remote) {
        Map<ChecksumAlgorithm, String> out = new EnumMap<>(ChecksumAlgorithm.class);
        String spec = remote.get(CHECKSUMS);
        if (spec != null) {
            for (String entry : spec.split(";")) {
                int eq = entry.indexOf('=');
                if (eq > 0) {
                    ChecksumAlgorithm.fromS3Name(entry.substring(0, eq))
                            .ifPresent(a -> out.put(a, entry.substring(eq + 1)));
                }
            }
        }
        return out;
    }

    static boolean isPlain(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return !s.startsWith("=?");
    }

    private static String encode(String s) {
        return isPlain(s) ? s
                : "=?UTF-8?B?" + Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8)) + "?=";
    }

    private static String decode(String s) {
        if (s.startsWith("=?UTF-8?B?") && s.endsWith("?=")) {
            try {
                return new String(Base64.getDecoder().decode(s.substring(10, s.length() - 2)), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException notOurs) {
                return s;
            }
        }
        return s;
    }
}
