package org.objrdma.store.s3.internal;

import java.util.EnumMap;
import java.util.Map;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectInfo;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/** Turns the remote store's HEAD answer into the SPI's {@link ObjectInfo}. */
final class RemoteObjects {
    private RemoteObjects() {
    }

    static ObjectInfo info(String key, HeadObjectResponse r) {
        Map<String, String> remoteMeta = r.metadata();
        ObjectAttributes attributes = new ObjectAttributes(r.contentType(), r.contentEncoding(),
                r.contentDisposition(), r.contentLanguage(), r.cacheControl(), r.expiresString(),
                ObjectMetadata.userFromRemote(remoteMeta));
        Map<ChecksumAlgorithm, String> checksums = new EnumMap<>(ChecksumAlgorithm.class);
        // the remote store's own checksum first (objects written by other clients), then the adapter's
        putIfPresent(checksums, ChecksumAlgorithm.CRC32, r.checksumCRC32());
        putIfPresent(checksums, ChecksumAlgorithm.CRC32C, r.checksumCRC32C());
        putIfPresent(checksums, ChecksumAlgorithm.CRC64NVME, r.checksumCRC64NVME());
        putIfPresent(checksums, ChecksumAlgorithm.SHA1, r.checksumSHA1());
        putIfPresent(checksums, ChecksumAlgorithm.SHA256, r.checksumSHA256());
        checksums.putAll(ObjectMetadata.checksumsFromRemote(remoteMeta));
        String etag = Conditions.unquote(r.eTag());
        return new ObjectInfo(key, r.contentLength(), etag, r.lastModified(), attributes, checksums, partsCount(etag));
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
