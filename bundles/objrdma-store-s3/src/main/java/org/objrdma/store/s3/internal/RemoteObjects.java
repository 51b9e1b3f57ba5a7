package org.objrdma.store.s3.internal;

import java.util.EnumMap;
import java.util.Map;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectInfo;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/** Turns the remote store's HEAD (or whole-object GET) answer into the SPI's {@link ObjectInfo}. */
final class RemoteObjects {
    private RemoteObjects() {
    }

    static ObjectInfo info(String key, HeadObjectResponse r) {
        return info(key, r.contentLength(), r.eTag(), r.lastModified(), r.metadata(), new ObjectAttributes(r.contentType(),
                r.contentEncoding(), r.contentDisposition(), r.contentLanguage(), r.cacheControl(), r.expiresString(),
                ObjectMetadata.userFromRemote(r.metadata())), r.checksumCRC32(), r.checksumCRC32C(),
                r.checksumCRC64NVME(), r.checksumSHA1(), r.checksumSHA256());
    }

    /** The same from the answer to a GET of the whole object (no Range), whose headers are HEAD's. */
    static ObjectInfo info(String key, GetObjectResponse r) {
        return info(key, r.contentLength(), r.eTag(), r.lastModified(), r.metadata(), new ObjectAttributes(r.contentType(),
                r.contentEncoding(), r.contentDisposition(), r.contentLanguage(), r.cacheControl(), r.expiresString(),
                ObjectMetadata.userFromRemote(r.metadata())), r.checksumCRC32(), r.checksumCRC32C(),
                r.checksumCRC64NVME(), r.checksumSHA1(), r.checksumSHA256());
    }

    private static ObjectInfo info(String key, Long size, String remoteEtag, java.time.Instant lastModified,
            Map<String, String> remoteMeta, ObjectAttributes attributes, String crc32, String crc32c, String crc64,
            String sha1, String sha256) {
        Map<ChecksumAlgorithm, String> checksums = new EnumMap<>(ChecksumAlgorithm.class);
        // the remote store's own checksum first (objects written by other clients), then the adapter's
        putIfPresent(checksums, ChecksumAlgorithm.CRC32, crc32);
        putIfPresent(checksums, ChecksumAlgorithm.CRC32C, crc32c);
        putIfPresent(checksums, ChecksumAlgorithm.CRC64NVME, crc64);
        putIfPresent(checksums, ChecksumAlgorithm.SHA1, sha1);
        putIfPresent(checksums, ChecksumAlgorithm.SHA256, sha256);
        checksums.putAll(ObjectMetadata.checksumsFromRemote(remoteMeta));
        String etag = Conditions.unquote(remoteEtag);
        return new ObjectInfo(key, size, etag, lastModified, attributes, checksums, partsCount(etag));
    }

    /** S3 stores Expires as sent; the SDK's builders only take an Instant, so the raw header rides as an override. */
    static AwsRequestOverrideConfiguration expiresHeader(String expires) {
        return expires == null ? null : AwsRequestOverrideConfiguration.builder().putHeader("Expires", expires).build();
    }

    static int partsCount(String etag) {
        int dash = etag.lastIndexOf('-');
        if (dash > 0) {
            try {
                return Integer.parseInt(etag.substring(dash + 1));
            } catch (NumberFormatException notMultipart) {
                return 0;
            }
        }
        return 0;
    }

    private static void putIfPresent(Map<ChecksumAlgorithm, String> out, ChecksumAlgorithm a, String value) {
        if (value != null && !value.isEmpty()) {
            out.put(a, value);
        }
    }
}
