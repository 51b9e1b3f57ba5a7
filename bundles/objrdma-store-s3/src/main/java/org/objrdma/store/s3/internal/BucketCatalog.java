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
 *
 * <p><b>The owner cache</b> ({@link #cachedOwner}, {@code catalog.cache.ms}): authorizing an object request
 * would otherwise read {@code buckets/<name>} on every request. A record found is trusted for the cache time;
 * what is not found is never cached (a bucket created through another gateway is usable here at once). Only
 * authorization uses the cache; bucket creation and deletion read the record itself, and this gateway's own
 * {@link #record} / {@link #forget} update it. What a stale entry can do: after a bucket was deleted through
 * another gateway, its former owner's object requests here pass authorization for at most the cache time and then
 * reach the remote store, which answers NoSuchBucket (nothing is written, nothing read); if within that time
 * another user re-created the name through another gateway, the former owner may still act on it for the rest of
 * the cache time. Object data and object metadata are never cached: every read and write of an object goes to the
 * remote store, the one truth all gateways share, so no gateway can serve another's overwritten or partial object.
 */
final class BucketCatalog {
    private final S3Client s3;
    private final String systemBucket;
    private final long cacheNanos;
    private final java.util.function.LongSupplier clock;
    private final java.util.concurrent.ConcurrentHashMap<String, Cached> owners = new java.util.concurrent.ConcurrentHashMap<>();

    /** A record found, and until when (clock nanos) it is trusted. */
    private record Cached(BucketInfo info, long until) {
    }

    BucketCatalog(S3Client s3, String systemBucket) {
        this(s3, systemBucket, 0, System::nanoTime);
    }

    /** @param cacheMs how long a record found is trusted by {@link #cachedOwner}; 0 for never */
    BucketCatalog(S3Client s3, String systemBucket, long cacheMs, java.util.function.LongSupplier clock) {
        this.s3 = s3;
        this.systemBucket = systemBucket;
        this.cacheNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(cacheMs);
        this.clock = clock;
    }

    /** The bucket's record for authorizing: from the cache while trusted, else read (and cached when found). */
    Optional<BucketInfo> cachedOwner(String bucket) throws StoreException {
        if (cacheNanos > 0) {
            Cached c = owners.get(bucket);
            if (c != null && clock.getAsLong() - c.until() < 0) {
                return Optional.of(c.info());
            }
        }
        return lookup(bucket);
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

    /** The bucket's record read now from the system bucket (and the cache refreshed with it). */
    Optional<BucketInfo> lookup(String bucket) throws StoreException {
        try {
            var response = s3.getObject(b -> b.bucket(systemBucket).key("buckets/" + bucket),
                    ResponseTransformer.toBytes());
            GetObjectResponse meta = response.response();
            BucketInfo found = new BucketInfo(bucket, meta.lastModified(),
                    new String(response.asByteArray(), StandardCharsets.UTF_8));
            if (cacheNanos > 0) {
                owners.put(bucket, new Cached(found, clock.getAsLong() + cacheNanos));
            }
            return Optional.of(found);
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 404) {
                owners.remove(bucket);
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
        owners.remove(bucket.name());
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
