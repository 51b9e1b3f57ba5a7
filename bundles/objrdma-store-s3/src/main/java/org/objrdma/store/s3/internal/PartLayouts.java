package org.objrdma.store.s3.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The part sizes of every multipart object the adapter completed, so GET / HEAD {@code ?partNumber=N} work
 * on any S3 service: many (s3proxy's filesystem backend among them) keep only the concatenated bytes and the
 * {@code -N} ETag. One record per completed version in the system bucket,
 * {@code part-layouts/<remote bucket>/<SHA-256 of key>/<ETag>}: keyed by the ETag, so a handle opened on one
 * version reads that version's layout even after the key was overwritten; the key is hashed so a 1 024-byte
 * key still fits a file name, and repeated in the body so a hash clash cannot serve another key's layout.
 * Records are never removed (a few dozen bytes per completed upload; see the README).
 */
final class PartLayouts {
    private static final HexFormat HEX = HexFormat.of();

    private final S3Client s3;
    private final String systemBucket;

    PartLayouts(S3Client s3, String systemBucket) {
        this.s3 = s3;
        this.systemBucket = systemBucket;
    }

    private static String recordKey(String remoteBucket, String key, String etag) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "part-layouts/" + remoteBucket + "/" + HEX.formatHex(h) + "/" + etag;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    void record(String remoteBucket, String key, String etag, List<Long> sizes) throws StoreException {
        StringBuilder body = new StringBuilder(key).append('\n');
        for (int i = 0; i < sizes.size(); i++) {
            body.append(i == 0 ? "" : ",").append(sizes.get(i));
        }
        try {
            s3.putObject(b -> b.bucket(systemBucket).key(recordKey(remoteBucket, key, etag)),
                    RequestBody.fromString(body.toString(), StandardCharsets.UTF_8));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "writing the part layout of " + key);
        }
    }

    /** The part sizes of version {@code etag} of {@code key}, in part order; empty if none was recorded. */
    Optional<long[]> find(String remoteBucket, String key, String etag) throws StoreException {
        String body;
        try {
            body = s3.getObject(b -> b.bucket(systemBucket).key(recordKey(remoteBucket, key, etag)),
                    ResponseTransformer.toBytes()).asString(StandardCharsets.UTF_8);
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 404) {
                return Optional.empty();
            }
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "reading the part layout of " + key);
        }
        int newline = body.lastIndexOf('\n');
        if (newline < 0 || !body.substring(0, newline).equals(key)) {
            return Optional.empty();
        }
        try {
            String[] fields = body.substring(newline + 1).split(",");
            long[] sizes = new long[fields.length];
            for (int i = 0; i < fields.length; i++) {
                sizes[i] = Long.parseLong(fields[i]);
            }
            return Optional.of(sizes);
        } catch (NumberFormatException e) {
            throw new StoreException(StoreError.INTERNAL_ERROR, "the part layout record of " + key + " is damaged", e);
        }
    }
}
