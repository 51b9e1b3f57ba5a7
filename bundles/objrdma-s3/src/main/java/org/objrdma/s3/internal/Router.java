package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.Set;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaHeaders;

/** Maps method, target and query to one S3 operation; anything else is NotImplemented or MethodNotAllowed. */
final class Router {

    /** Query parameters that are arguments of the operations served, not sub-resources. */
    private static final Set<String> ARGUMENTS = Set.of("list-type", "prefix", "delimiter", "max-keys",
            "continuation-token", "start-after", "fetch-owner", "encoding-type", "marker", "key-marker",
            "upload-id-marker", "max-uploads", "max-parts", "part-number-marker", "partNumber", "uploadId",
            "versionId", "x-id", "response-content-type", "response-content-language", "response-expires",
            "response-cache-control", "response-content-disposition", "response-content-encoding",
            "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders",
            "X-Amz-Signature", "X-Amz-Content-Sha256", "X-Amz-Security-Token", "AWSAccessKeyId", "Signature", "Expires",
            "uploads", "delete", "location", "acl", "attributes", "max-buckets", "bucket-region");

    /**
     * S3's sub-resources and feature parameters this gateway does not serve: 501 on any method. Other unknown
     * parameters are 501 too, except on GET and HEAD, where S3 ignores a parameter that names no sub-resource (a
     * browser POST's success_action_redirect comes back to the bucket with {@code bucket}, {@code key} and
     * {@code etag} appended); a read changes nothing, so an ignored parameter cannot make it do harm.
     */
    private static final Set<String> SUBRESOURCES = Set.of("accelerate", "analytics", "cors", "encryption",
            "intelligent-tiering", "inventory", "legal-hold", "lifecycle", "logging", "metadataTable", "metrics",
            "notification", "object-lock", "ownershipControls", "policy", "policyStatus", "publicAccessBlock",
            "replication", "requestPayment", "restore", "retention", "select", "select-type", "session", "tagging",
            "torrent", "versioning", "versions", "website", "append", "renameObject", "requestProgress");

    private Router() {
    }

    /**
     * Refuses query parameters naming an S3 feature this gateway does not serve (tagging, versioning, ...), and
     * any other unknown parameter of a request that is no GET or HEAD.
     */
    static void refuseUnknownSubresources(String method, QueryString q) throws S3Exception {
        boolean read = method.equals("GET") || method.equals("HEAD");
        for (QueryString.Param p : q.params()) {
            if (!ARGUMENTS.contains(p.name()) && (!read || SUBRESOURCES.contains(p.name()))) {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
                        "The '" + p.name() + "' sub-resource or parameter is not implemented by this gateway");
            }
        }
    }

    static void route(Exchange x) throws S3Exception, StoreException, IOException {
        if (RcRoutes.BUCKET.equals(x.bucket)) {
            RcRoutes.route(x);
            return;
        }
        refuseUnknownSubresources(x.request.method(), x.query);
        boolean rdmaToken = x.header(RdmaHeaders.TOKEN) != null;
        String method = x.request.method();
        QueryString q = x.query;
        if (q.has("acl") && x.bucket != null) {
            switch (method) {
                case "GET" -> AclOperations.get(x);
                case "PUT" -> AclOperations.put(x);
                default -> throw notAllowed(method);
            }
            return;
        }
        if (x.bucket == null) {
            if (method.equals("GET")) {
                ListBucketsOperation.get(x);
                return;
            }
            throw notAllowed(method);
        }
        if (x.key == null) {
            switch (method) {
                case "GET" -> {
                    if (q.has("location")) {
                        BucketOperations.location(x);
                    } else if (q.has("uploads")) {
                        ListOperations.listUploads(x);
                    } else {
                        ListOperations.list(x);
                    }
                }
                case "HEAD" -> BucketOperations.head(x);
                case "PUT" -> BucketOperations.create(x);
                case "DELETE" -> BucketOperations.delete(x);
                case "POST" -> {
                    if (q.has("delete")) {
                        BucketOperations.deleteObjects(x);
                    } else {
                        throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "This POST on a bucket is not implemented");
                    }
                }
                default -> throw notAllowed(method);
            }
            return;
        }
        String uploadId = q.get("uploadId");
        switch (method) {
            case "GET" -> {
                if (q.has("attributes")) {
                    ObjectAttributesOperation.get(x);
                } else if (uploadId != null) {
                    ListOperations.listParts(x, uploadId);
                } else if (rdmaToken) {
                    CuObjOperations.get(x);
                } else {
                    ObjectOperations.get(x, false);
                }
            }
            case "HEAD" -> ObjectOperations.get(x, true);
            case "PUT" -> {
                boolean copy = x.header("x-amz-copy-source") != null;
                if (uploadId != null) {
                    if (copy) {
                        MultipartOperations.uploadPartCopy(x, uploadId);
                    } else if (rdmaToken) {
                        CuObjOperations.uploadPart(x, uploadId);
                    } else {
                        MultipartOperations.uploadPart(x, uploadId);
                    }
                } else if (q.has("partNumber")) {
                    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "partNumber needs an uploadId");
                } else if (copy) {
                    ObjectOperations.copy(x);
                } else if (rdmaToken) {
                    CuObjOperations.put(x);
                } else {
                    ObjectOperations.put(x);
                }
            }
            case "DELETE" -> {
                if (uploadId != null) {
                    MultipartOperations.abort(x, uploadId);
                } else {
                    ObjectOperations.delete(x);
                }
            }
            case "POST" -> {
                if (q.has("uploads")) {
                    MultipartOperations.create(x);
                } else if (uploadId != null) {
                    MultipartOperations.complete(x, uploadId);
                } else {
                    throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "This POST on an object is not implemented");
                }
            }
            default -> throw notAllowed(method);
        }
    }

    private static S3Exception notAllowed(String method) {
        return new S3Exception(S3ErrorCode.METHOD_NOT_ALLOWED,
                "The specified method (" + method + ") is not allowed against this resource");
    }
}
