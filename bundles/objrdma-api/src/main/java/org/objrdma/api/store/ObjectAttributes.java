package org.objrdma.api.store;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a writer says about an object and S3 returns unchanged on GET and HEAD. Optional headers are
 * null when absent; they are stored as the client sent them (S3 does not parse {@code Expires} either).
 *
 * @param contentType        media type; {@code binary/octet-stream} (S3's default) when null is given
 * @param contentEncoding    Content-Encoding, or null
 * @param contentDisposition Content-Disposition, or null
 * @param contentLanguage    Content-Language, or null
 * @param cacheControl       Cache-Control, or null
 * @param expires            Expires as sent, or null
 * @param userMetadata       {@code x-amz-meta-*} headers: names without the prefix, lower-cased (as S3
 *                           returns them), sorted; values as sent
 * @param acl                the object's canned ACL, stored and committed with it (not returned on GET or HEAD);
 *                           {@link CannedAcl#PRIVATE} when null is given (since 2.4)
 */
public record ObjectAttributes(String contentType, String contentEncoding, String contentDisposition,
        String contentLanguage, String cacheControl, String expires, Map<String, String> userMetadata, CannedAcl acl) {

    /** S3's content type for an object stored without one. */
    public static final String DEFAULT_CONTENT_TYPE = "binary/octet-stream";

    /** No headers beyond the default content type. */
    public static final ObjectAttributes NONE = new ObjectAttributes(null, null, null, null, null, null, Map.of());

    public ObjectAttributes {
        contentType = contentType == null ? DEFAULT_CONTENT_TYPE : contentType;
        acl = acl == null ? CannedAcl.PRIVATE : acl;
        TreeMap<String, String> meta = new TreeMap<>();
        Objects.requireNonNull(userMetadata, "userMetadata").forEach((name, value) -> {
            Objects.requireNonNull(value, "user metadata value of " + name);
            String lower = Objects.requireNonNull(name, "user metadata name").toLowerCase(Locale.ROOT);
            if (lower.isEmpty()) {
                throw new IllegalArgumentException("user metadata names must not be empty");
            }
            meta.put(lower, value);
        });
        userMetadata = java.util.Collections.unmodifiableSortedMap(meta);
    }

    /** Private (the 2.3 form). */
    public ObjectAttributes(String contentType, String contentEncoding, String contentDisposition,
            String contentLanguage, String cacheControl, String expires, Map<String, String> userMetadata) {
        this(contentType, contentEncoding, contentDisposition, contentLanguage, cacheControl, expires, userMetadata,
                CannedAcl.PRIVATE);
    }

    /** These attributes with the ACL {@code newAcl}. @since 2.4 */
    public ObjectAttributes withAcl(CannedAcl newAcl) {
        return new ObjectAttributes(contentType, contentEncoding, contentDisposition, contentLanguage, cacheControl,
                expires, userMetadata, newAcl);
    }

    /** Only a content type. */
    public static ObjectAttributes ofContentType(String contentType) {
        return new ObjectAttributes(contentType, null, null, null, null, null, Map.of());
    }
}
