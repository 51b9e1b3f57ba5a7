package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.auth.Authentication;
import org.objrdma.s3.auth.PayloadMode;
import org.objrdma.s3.auth.SignatureVersion;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaServices;

/**
 * Requests without any signature (no Authorization header, no presigned parameters), served only while
 * {@code public.access.enabled} is on, and then only the operations an ACL can grant everyone
 * ({@link AccessControl}): GetObject / HeadObject, ListObjects (V1, V2) / HeadBucket, PutObject (not a copy, not
 * a part) and DeleteObject. Everything else is 403 AccessDenied before any lookup: ListBuckets, ACLs, multipart
 * uploads, bucket administration, and the RDMA routes (an {@code x-amz-rdma-*} header or the RC routes), which
 * need SigV4 whatever the ACLs say. A body can only be sent as it is: an aws-chunked body needs a signature.
 * Objects written this way are owned by their bucket's owner, as every object here.
 */
final class AnonymousRoutes {

    /** Query parameters that make a request a signed one: SigV4's and SigV2's presigned forms. */
    private static final Set<String> SIGNING_PARAMS = Set.of("X-Amz-Algorithm", "X-Amz-Credential",
            "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date", "X-Amz-Security-Token", "AWSAccessKeyId",
            "Signature");
    /** Sub-resources of operations no ACL grants. */
    private static final Set<String> OWNER_ONLY = Set.of("acl", "uploads", "uploadId", "partNumber", "delete",
            "location", "attributes");
    /** Who an anonymous request is: no key, its body as sent, no header vouched for. */
    static final Authentication ANONYMOUS = new Authentication(null, PayloadMode.UNSIGNED, null, null, null,
            null, null, List.of(), SignatureVersion.V2);

    private AnonymousRoutes() {
    }

    /** Whether the request carries no signature at all, in a header or the query. */
    static boolean isAnonymous(S3Request request, QueryString query) {
        if (request.header("Authorization") != null) {
            return false;
        }
        for (QueryString.Param p : query.params()) {
            if (SIGNING_PARAMS.contains(p.name())) {
                return false;
            }
        }
        return true;
    }

    static void route(S3Request request, S3Response response, QueryString query, String bucket, String key,
            ObjectStore store, S3Settings settings) throws S3Exception, StoreException, IOException {
        if (bucket == null || RcRoutes.BUCKET.equals(bucket)) {
            throw denied("needs a signed request");
        }
        for (String name : request.headerNames()) {
            if (name.regionMatches(true, 0, RdmaHeaders.PREFIX, 0, RdmaHeaders.PREFIX.length())) {
                throw denied("an RDMA transfer needs a SigV4-signed request");
            }
        }
        String sha = request.header("x-amz-content-sha256");
        if (sha != null && sha.startsWith("STREAMING-")) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "An aws-chunked body needs a signed request");
        }
        Router.refuseUnknownSubresources(request.method(), query);
        for (QueryString.Param p : query.params()) {
            if (OWNER_ONLY.contains(p.name())) {
                throw denied("the '" + p.name() + "' sub-resource needs a signed request");
            }
        }
        Exchange x = new Exchange(request, response, query, ANONYMOUS, bucket, key, store, settings,
                RdmaServices.NONE, true);
        String method = request.method();
        if (key == null) {
            switch (method) {
                case "GET" -> ListOperations.list(x);
                case "HEAD" -> BucketOperations.head(x);
                default -> throw denied(method + " on a bucket needs a signed request");
            }
            return;
        }
        switch (method) {
            case "GET" -> ObjectOperations.get(x, false);
            case "HEAD" -> ObjectOperations.get(x, true);
            case "PUT" -> {
                if (x.header("x-amz-copy-source") != null) {
                    throw denied("CopyObject needs a signed request");
                }
                ObjectOperations.put(x);
            }
            case "DELETE" -> ObjectOperations.delete(x);
            default -> throw denied(method + " on an object needs a signed request");
        }
    }

    private static S3Exception denied(String why) {
        return new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: an anonymous request; " + why);
    }
}
