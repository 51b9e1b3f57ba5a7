package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.CompletionRecords;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.DeleteResult;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;
import org.objrdma.wire.UserCredentials;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The store SPI over a remote S3 service. Users are the adapter's own ({@code credentials}); every remote
 * call is signed with the one service credential; bucket ownership lives in the {@link BucketCatalog} on
 * the remote store. Names are checked here with {@link StoreLimits} before anything is sent.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(S3ObjectStore.class);
    private final RemoteClients.Remote remote;
    private final S3Client s3;
    private final S3StoreSettings settings;
    private final UserCredentials users;
    private final BucketCatalog catalog;
    private final RemoteWrites writes;
    private final RemoteMultipart multipart;
    private final CompletionRecords completions = new CompletionRecords(java.time.Clock.systemUTC());
    private final ListTokens tokens;
    private final PartLayouts layouts;

    S3ObjectStore(S3StoreSettings settings) throws StoreException {
        this.settings = settings;
        this.remote = RemoteClients.createBoth(settings);
        this.s3 = remote.s3();
        this.users = settings.users();
        this.catalog = new BucketCatalog(s3, settings.systemBucket(), settings.catalogCacheMs(), System::nanoTime);
        this.layouts = new PartLayouts(s3, settings.systemBucket());
        this.writes = new RemoteWrites(s3, remote.streaming(), settings.multipartThreshold(), settings.partSize(), layouts);
        this.multipart = new RemoteMultipart(s3, new UploadRecords(s3, settings.systemBucket()));
        this.tokens = new ListTokens(settings.serviceSecretKey());
        try {
            catalog.ensure();
        } catch (StoreException e) {
            remote.close();
            throw e;
        }
    }

    /** Opens the adapter for the configuration properties of PID {@code org.objrdma.store.s3}. */
    public static S3ObjectStore open(Map<String, ?> properties) throws StoreException {
        return new S3ObjectStore(S3StoreSettings.from(properties));
    }

    @Override
    public String name() {
        return "s3:" + String.join(",", settings.endpoints().stream().map(Object::toString).toList());
    }

    @Override
    public void close() {
        remote.close();
    }

    private String remote(String bucket) {
        return settings.remoteBucket(bucket);
    }

    // ---- principals

    @Override
    public Optional<String> secretKey(String accessKeyId) {
        return users.secret(accessKeyId);
    }

    @Override
    public boolean isAuthorized(String accessKeyId, StoreAction action, String bucket, String key) {
        if (!users.knows(accessKeyId)) {
            return false;
        }
        if (action.level() == StoreAction.Level.SERVICE || action == StoreAction.CREATE_BUCKET) {
            return true;
        }
        try {
            Optional<BucketInfo> owned = catalog.cachedOwner(bucket);
            if (owned.isPresent()) {
                return owned.get().owner().equals(accessKeyId);
            }
            // no record: a missing bucket reports itself as missing; a foreign remote bucket is nobody's here
            return !remoteBucketExists(bucket);
        } catch (StoreException e) {
            return false;
        }
    }

    // ---- buckets

    @Override
    public BucketInfo createBucket(String owner, String bucket) throws StoreException {
        StoreLimits.validateBucketName(bucket);
        StoreLimits.validateBucketName(remote(bucket));
        if (remote(bucket).equals(settings.systemBucket())) {
            throw new StoreException(StoreError.BUCKET_ALREADY_EXISTS, "the name " + bucket + " is reserved");
        }
        // asked first, not inferred from CreateBucket's answer: RGW (like S3's us-east-1) answers 200 to a
        // CreateBucket of a bucket the service credential already owns, which all of the gateway's buckets are
        Optional<BucketInfo> recorded = catalog.lookup(bucket);
        if (recorded.isPresent()) {
            throw recorded.get().owner().equals(owner)
                    ? new StoreException(StoreError.BUCKET_ALREADY_OWNED_BY_YOU, "you already own " + bucket)
                    : new StoreException(StoreError.BUCKET_ALREADY_EXISTS, "the bucket " + bucket + " exists");
        }
        if (remoteBucketExists(bucket)) {
            throw new StoreException(StoreError.BUCKET_ALREADY_EXISTS, "the bucket " + bucket
                    + " exists on the remote store (made by another client of it)");
        }
        try {
            s3.createBucket(b -> b.bucket(remote(bucket)));
        } catch (SdkException e) {
            String code = BucketCatalog.code(e);
            if ("BucketAlreadyOwnedByYou".equals(code) || "BucketAlreadyExists".equals(code)) {
                Optional<BucketInfo> existing = catalog.lookup(bucket);
                if (existing.isPresent() && existing.get().owner().equals(owner)) {
                    throw new StoreException(StoreError.BUCKET_ALREADY_OWNED_BY_YOU, "you already own " + bucket);
                }
                throw new StoreException(StoreError.BUCKET_ALREADY_EXISTS, "the bucket " + bucket + " exists");
            }
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "CreateBucket " + bucket);
        }
        return catalog.record(owner, bucket);
    }

    @Override
    public BucketInfo headBucket(String bucket) throws StoreException {
        if (!remoteBucketExists(bucket)) {
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
        return catalog.lookup(bucket).orElseGet(() -> new BucketInfo(bucket, java.time.Instant.EPOCH, ""));
    }

    private boolean remoteBucketExists(String bucket) throws StoreException {
        if (remote(bucket).equals(settings.systemBucket())) {
            return false;
        }
        try {
            s3.headBucket(b -> b.bucket(remote(bucket)));
            return true;
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 404) {
                return false;
            }
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "HeadBucket " + bucket);
        }
    }

    @Override
    public List<BucketInfo> listBuckets(String owner) throws StoreException {
        return catalog.ownedBy(owner);
    }

    @Override
    public void deleteBucket(String bucket) throws StoreException {
        BucketInfo info = headBucket(bucket);
        try {
            if (!s3.listObjectsV2(b -> b.bucket(remote(bucket)).maxKeys(1)).contents().isEmpty()
                    || !s3.listMultipartUploads(b -> b.bucket(remote(bucket)).maxUploads(1)).uploads().isEmpty()) {
                throw new StoreException(StoreError.BUCKET_NOT_EMPTY, "the bucket " + bucket + " holds objects or uploads");
            }
            s3.deleteBucket(b -> b.bucket(remote(bucket)));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "DeleteBucket " + bucket);
        }
        if (!info.owner().isEmpty()) {
            catalog.forget(info);
        }
    }

    // ---- reading

    @Override
    public ObjectContent open(String bucket, String key, Conditions conditions) throws StoreException {
        StoreLimits.validateKey(key);
        // one GET of the whole object, not HEAD + GET: its headers are the info, its body is held for the first
        // read (RemoteContent), which is the whole object in the common case
        ResponseInputStream<GetObjectResponse> opened;
        try {
            opened = s3.getObject(b -> b.bucket(remote(bucket)).key(key).checksumMode(ChecksumMode.ENABLED));
        } catch (SdkException e) {
            throw missingObjectOrBucket(e, bucket, key, "GET");
        }
        GetObjectResponse r = opened.response();
        ObjectInfo info = RemoteObjects.info(key, r);
        try {
            conditions.check(info.etag(), info.lastModified());
        } catch (StoreException | RuntimeException e) {
            RemoteContent.release(opened, info.size() == 0);
            throw e;
        }
        String version = r.versionId() == null || r.versionId().equals("null") ? null : r.versionId();
        return new RemoteContent(s3, remote(bucket), info, version, layouts, opened);
    }

    @Override
    public ObjectInfo head(String bucket, String key, Conditions conditions) throws StoreException {
        ObjectInfo info = headObject(bucket, key);
        conditions.check(info.etag(), info.lastModified());
        return info;
    }

    private ObjectInfo headObject(String bucket, String key) throws StoreException {
        StoreLimits.validateKey(key);
        return RemoteObjects.info(key, headRemote(bucket, key));
    }

    private HeadObjectResponse headRemote(String bucket, String key) throws StoreException {
        try {
            return s3.headObject(b -> b.bucket(remote(bucket)).key(key).checksumMode(ChecksumMode.ENABLED));
        } catch (SdkException e) {
            throw missingObjectOrBucket(e, bucket, key, "HEAD");
        }
    }

    /** A bare 404 (HEAD has no body) says neither which: ask whether the bucket exists. */
    private StoreException missingObjectOrBucket(SdkException e, String bucket, String key, String what)
            throws StoreException {
        if (RemoteErrors.status(e) == 404 && BucketCatalog.code(e) == null || "NoSuchKey".equals(BucketCatalog.code(e))) {
            StoreError error = remoteBucketExists(bucket) ? StoreError.NO_SUCH_KEY : StoreError.NO_SUCH_BUCKET;
            return new StoreException(error, what + " " + bucket + "/" + key + ": " + error.s3Code());
        }
        return RemoteErrors.map(e, StoreError.NO_SUCH_KEY, what + " " + key);
    }

    // ---- writing

    /**
     * No HeadBucket first: the write itself answers NoSuchBucket when the bucket is missing (mapped by its code),
     * one remote request instead of two; only the system bucket, which no gateway bucket may reach, is refused here.
     */
    private void checkWrite(String bucket, String key, PutOptions options) throws StoreException {
        StoreLimits.validateKey(key);
        StoreLimits.validateUserMetadata(options.attributes().userMetadata());
        if (remote(bucket).equals(settings.systemBucket())) {
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
    }

    @Override
    public PutResult put(String bucket, String key, MemorySegment source, PutOptions options) throws StoreException {
        checkWrite(bucket, key, options);
        return writes.put(remote(bucket), key, source, options);
    }

    @Override
    public PutResult put(String bucket, String key, InputStream body, long length, PutOptions options)
            throws StoreException, IOException {
        checkWrite(bucket, key, options);
        return writes.put(remote(bucket), key, body, length, options);
    }

    @Override
    public void delete(String bucket, String key) throws StoreException {
        StoreLimits.validateKey(key);
        if (!remoteBucketExists(bucket)) {
            // S3 answers NoSuchBucket here; some S3 services (s3proxy) answer 204
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
        try {
            s3.deleteObject(b -> b.bucket(remote(bucket)).key(key));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "DELETE " + key);
        }
    }

    @Override
    public List<DeleteResult> deleteMany(String bucket, List<String> keys) throws StoreException {
        if (keys.size() > StoreLimits.MAX_DELETE_KEYS) {
            throw new StoreException(StoreError.INVALID_ARGUMENT,
                    "at most " + StoreLimits.MAX_DELETE_KEYS + " keys per request, got " + keys.size());
        }
        if (!remoteBucketExists(bucket)) {
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
        DeleteResult[] results = new DeleteResult[keys.size()];
        List<ObjectIdentifier> valid = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            try {
                StoreLimits.validateKey(keys.get(i));
                valid.add(ObjectIdentifier.builder().key(keys.get(i)).build());
            } catch (StoreException e) {
                results[i] = DeleteResult.failed(keys.get(i), e);
            }
        }
        Map<String, StoreException> failures = new java.util.HashMap<>();
        if (!valid.isEmpty()) {
            try {
                var r = s3.deleteObjects(b -> b.bucket(remote(bucket)).delete(d -> d.objects(valid).quiet(true)));
                r.errors().forEach(err -> failures.put(err.key(), new StoreException(StoreError.INTERNAL_ERROR,
                        "the remote store refused: " + err.code() + " " + err.message())));
            } catch (SdkException e) {
                throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "DeleteObjects");
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            if (results[i] == null) {
                StoreException failed = failures.get(keys.get(i));
                results[i] = failed == null ? DeleteResult.deleted(keys.get(i)) : DeleteResult.failed(keys.get(i), failed);
            }
        }
        return List.of(results);
    }

    @Override
    public PutResult copy(String sourceBucket, String sourceKey, Conditions sourceConditions, String bucket, String key,
            ObjectAttributes replacement) throws StoreException {
        StoreLimits.validateKey(key);
        ObjectInfo source = headObject(sourceBucket, sourceKey);
        sourceConditions.checkCopySource(source.etag(), source.lastModified());
        if (replacement == null && sourceBucket.equals(bucket) && sourceKey.equals(key)) {
            throw new StoreException(StoreError.INVALID_REQUEST,
                    "copying an object onto itself without changing its metadata is not allowed");
        }
        if (source.size() > S3StoreSettings.MAX_PART) {
            throw new StoreException(StoreError.ENTITY_TOO_LARGE,
                    "this adapter copies objects up to 5 GiB in one CopyObject; " + sourceKey + " is " + source.size());
        }
        if (replacement != null) {
            StoreLimits.validateUserMetadata(replacement.userMetadata());
        }
        if (!remoteBucketExists(bucket)) {
            throw new StoreException(StoreError.NO_SUCH_BUCKET, "the bucket " + bucket + " does not exist");
        }
        try {
            var r = s3.copyObject(b -> {
                b.sourceBucket(remote(sourceBucket)).sourceKey(sourceKey).destinationBucket(remote(bucket))
                        .destinationKey(key).copySourceIfMatch("\"" + source.etag() + "\"");
                if (replacement == null) {
                    b.metadataDirective(MetadataDirective.COPY);
                } else {
                    b.metadataDirective(MetadataDirective.REPLACE)
                            .metadata(ObjectMetadata.toRemote(replacement.userMetadata(), source.checksums()))
                            .contentType(replacement.contentType()).contentEncoding(replacement.contentEncoding())
                            .contentDisposition(replacement.contentDisposition())
                            .contentLanguage(replacement.contentLanguage()).cacheControl(replacement.cacheControl())
                            .overrideConfiguration(RemoteObjects.expiresHeader(replacement.expires()));
                }
            });
            return new PutResult(Conditions.unquote(r.copyObjectResult().eTag()), source.size(),
                    r.copyObjectResult().lastModified(), source.checksums());
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 412) {
                throw new StoreException(StoreError.PRECONDITION_FAILED, "the source changed during the copy", e);
            }
            throw RemoteErrors.map(e, StoreError.NO_SUCH_KEY, "CopyObject " + sourceKey);
        }
    }

    // ---- listing

    @Override
    public ListPage list(String bucket, ListRequest request) throws StoreException {
        String remoteToken = request.continuationToken() == null ? null : tokens.redeem(request.continuationToken());
        if (request.maxKeys() == 0) {
            headBucket(bucket);
            return new ListPage(List.of(), List.of(), false, null);
        }
        ListObjectsV2Response r;
        try {
            r = s3.listObjectsV2(b -> b.bucket(remote(bucket)).prefix(request.prefix().isEmpty() ? null : request.prefix())
                    .delimiter(request.delimiter().isEmpty() ? null : request.delimiter()).maxKeys(request.maxKeys())
                    .continuationToken(remoteToken).startAfter(remoteToken == null ? request.startAfter() : null)
                    .encodingType(EncodingType.URL));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "ListObjectsV2");
        }
        List<ObjectSummary> objects = new ArrayList<>();
        for (S3Object o : r.contents()) {
            objects.add(new ObjectSummary(o.key(), o.size(), Conditions.unquote(o.eTag()), o.lastModified()));
        }
        List<String> prefixes = r.commonPrefixes().stream().map(CommonPrefix::prefix).toList();
        boolean truncated = Boolean.TRUE.equals(r.isTruncated()) && r.nextContinuationToken() != null;
        return new ListPage(objects, prefixes, truncated, truncated ? tokens.issue(r.nextContinuationToken()) : null);
    }

    // ---- multipart

    @Override
    public UploadInfo createMultipartUpload(String bucket, String key, ObjectAttributes attributes,
            ChecksumAlgorithm checksumAlgorithm) throws StoreException {
        StoreLimits.validateKey(key);
        StoreLimits.validateUserMetadata(attributes.userMetadata());
        return multipart.create(remote(bucket), key, attributes, checksumAlgorithm);
    }

    @Override
    public PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, MemorySegment source,
            PutOptions options) throws StoreException {
        StoreLimits.validateKey(key);
        return multipart.uploadPart(remote(bucket), key, uploadId, partNumber, source, options);
    }

    @Override
    public PartInfo uploadPart(String bucket, String key, String uploadId, int partNumber, InputStream body, long length,
            PutOptions options) throws StoreException, IOException {
        StoreLimits.validateKey(key);
        return multipart.uploadPart(remote(bucket), key, uploadId, partNumber, body, length, options);
    }

    @Override
    public PartsPage listParts(String bucket, String key, String uploadId, int partNumberMarker, int maxParts)
            throws StoreException {
        StoreLimits.validateKey(key);
        return multipart.page(remote(bucket), key, uploadId, partNumberMarker, maxParts);
    }

    @Override
    public PutResult completeMultipartUpload(String bucket, String key, String uploadId, List<CompletedPart> parts)
            throws StoreException {
        StoreLimits.validateKey(key);
        UploadInfo upload;
        try {
            upload = multipart.describe(remote(bucket), key, uploadId);
        } catch (StoreException e) {
            var record = e.error() == StoreError.NO_SUCH_UPLOAD ? completions.find(bucket, key, uploadId)
                    : java.util.Optional.<org.objrdma.api.store.CompletedUpload>empty();
            if (record.isEmpty()) {
                throw e;
            }
            return record.get().repeat(parts); // a retried completion: the first answer, or InvalidPart
        }
        Map<Integer, PartInfo> held = multipart.allParts(remote(bucket), key, uploadId);
        RemoteMultipart.checkCompletion(parts, held);
        multipart.complete(remote(bucket), key, uploadId, upload.checksumAlgorithm(), parts, held);
        ObjectInfo done = headObject(bucket, key);
        // the remote keeps only the concatenation; GET/HEAD ?partNumber= need the sizes (a failure here leaves a
        // completed object whose parts answer NotImplemented, not a failed completion the client would retry)
        try {
            layouts.record(remote(bucket), key, done.etag(), parts.stream().map(p -> held.get(p.partNumber()).size()).toList());
        } catch (StoreException e) {
            LOG.warn("{}/{} completed, but its part layout was not recorded: {}", bucket, key, e.getMessage());
        }
        Map<ChecksumAlgorithm, String> checksums = new java.util.EnumMap<>(ChecksumAlgorithm.class);
        ChecksumAlgorithm algorithm = upload.checksumAlgorithm();
        if (algorithm != null && parts.stream().allMatch(p -> held.get(p.partNumber()).checksums().containsKey(algorithm))) {
            // what S3 reports for such an upload; a remote that stores no multipart checksum still tells the writer
            checksums.put(algorithm, algorithm.composite(parts.stream()
                    .map(p -> held.get(p.partNumber()).checksums().get(algorithm)).toList()));
        }
        checksums.putAll(done.checksums());
        PutResult result = new PutResult(done.etag(), done.size(), done.lastModified(), checksums);
        completions.add(bucket, key, uploadId, parts, result);
        return result;
    }

    @Override
    public void abortMultipartUpload(String bucket, String key, String uploadId) throws StoreException {
        StoreLimits.validateKey(key);
        multipart.abort(remote(bucket), key, uploadId);
    }

    @Override
    public UploadsPage listMultipartUploads(String bucket, ListUploadsRequest request) throws StoreException {
        return multipart.list(remote(bucket), request);
    }
}
