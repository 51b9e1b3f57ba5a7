package org.objrdma.s3.internal;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * The policy document of a browser POST upload (S3's "POST policy"): its {@code expiration} and the conditions
 * every form field must meet. Malformed documents are {@code 400 InvalidPolicyDocument}; an expired one or a
 * failed condition is {@code 403 AccessDenied} ("Invalid according to Policy"), as S3 answers them.
 *
 * <p>Conditions: {@code {"field": "value"}} and {@code ["eq", "$field", "value"]} (exact),
 * {@code ["starts-with", "$field", "prefix"]} and {@code ["content-length-range", min, max]}. Field names and
 * operators compare case-insensitively; values exactly. The document's own member names ({@code expiration},
 * {@code conditions}) are case-sensitive. A field the form does not send counts as the empty string.
 *
 * @param expiration when the policy stops being valid
 * @param conditions the field conditions, names in lower case
 * @param minLength  the smallest file the policy allows (0 without a content-length-range)
 * @param maxLength  the largest file, or {@link Long#MAX_VALUE} without a content-length-range
 */
record PostPolicy(Instant expiration, List<Condition> conditions, long minLength, long maxLength) {

    /** One field condition: {@code prefix} true for starts-with, else the value must be equal. */
    record Condition(String field, String value, boolean prefix) {
        boolean holds(String actual) {
            return prefix ? actual.startsWith(value) : actual.equals(value);
        }

        @Override
        public String toString() {
            return "[\"" + (prefix ? "starts-with" : "eq") + "\", \"$" + field + "\", \"" + value + "\"]";
        }
    }

    /**
     * Form fields that need no condition: the signature and what it is computed from or over (a condition could
     * add nothing the signature does not already fix), the file itself, {@code x-ignore-*}, and checksums, which
     * only constrain the bytes.
     */
    private static final Set<String> UNCONDITIONED = Set.of("policy", "signature", "awsaccesskeyid", "file",
            "x-amz-signature", "x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-security-token");

    static PostPolicy parse(String base64) throws S3Exception {
        String json;
        try {
            json = new String(Base64.getMimeDecoder().decode(base64.strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw invalid("the policy is not base64");
        }
        Object doc;
        try {
            doc = PolicyJson.parse(json);
        } catch (IllegalArgumentException e) {
            throw invalid("the policy is not valid JSON: " + e.getMessage());
        }
        if (!(doc instanceof Map<?, ?> top)) {
            throw invalid("the policy must be a JSON object");
        }
        if (!(top.get("expiration") instanceof String exp)) {
            throw invalid("Policy missing expiration (a string, ISO 8601 like 2026-12-03T12:00:00Z)");
        }
        Instant expiration;
        try {
            expiration = Instant.parse(exp);
        } catch (DateTimeParseException e) {
            throw invalid("Invalid Policy: Invalid 'expiration' value: '" + exp + "' (ISO 8601 in UTC, e.g. "
                    + "2026-12-03T12:00:00Z)");
        }
        if (!(top.get("conditions") instanceof List<?> list)) {
            throw invalid("Policy missing conditions (a JSON array)");
        }
        List<Condition> conditions = new ArrayList<>();
        long min = 0;
        long max = Long.MAX_VALUE;
        for (Object c : list) {
            if (c instanceof Map<?, ?> m) {
                if (m.size() != 1) {
                    throw invalid("Invalid Policy: a condition object must have exactly one member, not " + m.size());
                }
                Map.Entry<?, ?> e = m.entrySet().iterator().next();
                conditions.add(new Condition(fieldName((String) e.getKey(), false), text(e.getValue()), false));
            } else if (c instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof String op) {
                switch (op.toLowerCase(Locale.ROOT)) {
                    case "eq", "starts-with" -> {
                        if (l.size() != 3 || !(l.get(1) instanceof String field)) {
                            throw invalid("Invalid Policy: [\"" + op + "\", \"$field\", value] has 3 members");
                        }
                        conditions.add(new Condition(fieldName(field, true), text(l.get(2)),
                                op.equalsIgnoreCase("starts-with")));
                    }
                    case "content-length-range" -> {
                        if (l.size() != 3) {
                            throw invalid("Invalid Policy: [\"content-length-range\", min, max] has 3 members");
                        }
                        min = length(l.get(1));
                        max = length(l.get(2));
                        if (min > max) {
                            throw invalid("Invalid Policy: content-length-range minimum " + min + " is above its "
                                    + "maximum " + max);
                        }
                    }
                    default -> throw invalid("Invalid Policy: unknown condition operator '" + op + "'");
                }
            } else {
                throw invalid("Invalid Policy: a condition is an object or an array starting with an operator");
            }
        }
        return new PostPolicy(expiration, List.copyOf(conditions), min, max);
    }

    /**
     * Checks the policy against the request: not expired at {@code now}, every condition held by
     * {@code fields} (lower-case names; {@code bucket} is the bucket the request addresses), and no field
     * without a condition.
     */
    void check(Instant now, Map<String, String> fields, String bucket) throws S3Exception {
        if (!now.isBefore(expiration)) {
            throw denied("Invalid according to Policy: Policy expired.");
        }
        for (Condition c : conditions) {
            String actual = c.field().equals("bucket") ? bucket : fields.getOrDefault(c.field(), "");
            if (!c.holds(actual)) {
                throw denied("Invalid according to Policy: Policy Condition failed: " + c);
            }
        }
        for (String name : fields.keySet()) {
            if (UNCONDITIONED.contains(name) || name.startsWith("x-ignore-") || name.startsWith("x-amz-checksum-")
                    || name.equals("bucket")) {
                continue;
            }
            if (conditions.stream().noneMatch(c -> c.field().equals(name))) {
                throw denied("Invalid according to Policy: Extra input fields: " + name);
            }
        }
    }

    private static String fieldName(String name, boolean dollar) throws S3Exception {
        if (dollar) {
            if (!name.startsWith("$")) {
                throw invalid("Invalid Policy: a field in a condition array starts with '$', not '" + name + "'");
            }
            name = name.substring(1);
        }
        return name.toLowerCase(Locale.ROOT);
    }

    private static String text(Object value) throws S3Exception {
        if (value instanceof String s) {
            return s;
        }
        throw invalid("Invalid Policy: a condition's value must be a string, not " + value);
    }

    private static long length(Object value) throws S3Exception {
        if (value instanceof BigDecimal d) {
            try {
                long n = d.longValueExact();
                if (n >= 0) {
                    return n;
                }
            } catch (ArithmeticException e) {
                // falls through to the error
            }
        }
        throw invalid("Invalid Policy: content-length-range bounds must be integers from 0, not " + value);
    }

    private static S3Exception invalid(String message) {
        return new S3Exception(S3ErrorCode.INVALID_POLICY_DOCUMENT, message);
    }

    private static S3Exception denied(String message) {
        return new S3Exception(S3ErrorCode.ACCESS_DENIED, message);
    }
}
