package org.objrdma.store.s3.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.paginators.ListObjectsV2Iterable;

/**
 * Who owns which bucket, kept on the remote store itself (so every gateway in front of it agrees, with no
 * state of its own): in the system bucket, {@code buckets/<name>} holds the owner's access key id and
 * {@code owners/<owner>/<name>} lists an owner's buckets in one request. A remote bucket with no record
 * (made by someone else) is owned by nobody here: no gateway user is authorized on it.
 */
final class BucketCatalog {
    private final S3Client s3;
    private final String systemBucket;

    BucketCatalog(S3Client s3, String systemBucket) {
        this.s3 = s3;
        this.systemBucket = systemBucket;
    }

    /** Creates the system bucket when missing. */
    void ensure() throws StoreException {
        try {
            s3.headBucket(b -> b.bucket(systemBucket));
        } catch (SdkException missing) {
            if (RemoteErrors.status(missing) != 404) {
                throw RemoteErrors.map(missing, StoreError.NO_SUCH_BUCKET, "system bucket " + systemBucket);
            }
            try {
                s3.createBucket(b -> b.bucket(systemBucket));
            } catch (SdkException e) {
                if (!"BucketAlreadyOwnedByYou".equals(code(e))) {
                    throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "create system bucket " + systemBucket);
                }
            }
        }
    }

    Optional<BucketInfo> lookup(String bucket) throws StoreException {
        try {
            var response = s3.getObject(b -> b.bucket(systemBucket).key("buckets/" + bucket),
                    ResponseTransformer.toBytes());
            GetObjectResponse meta = response.response();
            return Optional.of(new BucketInfo(bucket, meta.lastModified(),
                    new String(response.asByteArray(), StandardCharsets.UTF_8)));
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 404) {
                return Optional.empty();
            }
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "catalog lookup of " + bucket);
        }
    }

    BucketInfo record(String owner, String bucket) throws StoreException {
        try {
            s3.putObject(b -> b.bucket(systemBucket).key("owners/" + owner + "/" + bucket), RequestBody.empty());
            s3.putObject(b -> b.bucket(systemBucket).key("buckets/" + bucket), RequestBody.fromString(owner));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "catalog record of " + bucket);
        }
        return lookup(bucket).orElseThrow(() -> new StoreException(StoreError.INTERNAL_ERROR,
                "the catalog record of " + bucket + " vanished right after it was written"));
    }

    void forget(BucketInfo bucket) throws StoreException {
        try {
            s3.deleteObject(b -> b.bucket(systemBucket).key("buckets/" + bucket.name()));
            s3.deleteObject(b -> b.bucket(systemBucket).key("owners/" + bucket.owner() + "/" + bucket.name()));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "catalog removal of " + bucket.name());
        }
    }

    List<BucketInfo> ownedBy(String owner) throws StoreException {
        String prefix = "owners/" + owner + "/";
        List<BucketInfo> out = new ArrayList<>();
        try {
            ListObjectsV2Iterable pages = s3.listObjectsV2Paginator(b -> b.bucket(systemBucket).prefix(prefix));
            for (S3Object o : pages.contents()) {
                out.add(new BucketInfo(o.key().substring(prefix.length()), o.lastModified(), owner));
            }
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "catalog listing of " + owner);
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    static String code(SdkException e) {
        return e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException s && s.awsErrorDetails() != null
                ? s.awsErrorDetails().errorCode() : null;
    }

}
