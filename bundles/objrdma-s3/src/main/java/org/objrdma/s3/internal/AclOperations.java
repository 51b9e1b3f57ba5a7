package org.objrdma.s3.internal;

import java.io.IOException;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.WriteCondition;
import java.io.InputStream;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * {@code ?acl} on a bucket or object: canned ACLs ({@link CannedAcls}), kept by the store with the bucket's record
 * or the object's. GetBucketAcl / GetObjectAcl answer the owner's FULL_CONTROL and the group grants of the stored
 * ACL; PutBucketAcl / PutObjectAcl take {@code x-amz-acl}. Only the bucket's owner reads or sets an ACL (no ACL
 * grants READ_ACP / WRITE_ACP to anyone else). An AccessControlPolicy body or {@code x-amz-grant-*} headers are
 * {@code 501 NotImplemented} and change nothing.
 *
 * <p>An object's ACL is part of its record, committed with its bytes; PutObjectAcl therefore writes the object
 * again with the new ACL (same bytes, headers and checksums), conditional on the ETag it read, so a concurrent
 * overwrite is never replaced by the old bytes (the request then fails 412 and changes nothing). The rewrite is
 * a new version: Last-Modified changes, and a multipart object becomes a single-part one (its ETag is then the
 * MD5 of its bytes).
 */
final class AclOperations {

    private AclOperations() {
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        CannedAcl acl;
        if (x.key == null) {
            x.authorizeOwner(StoreAction.HEAD_BUCKET);
            acl = x.store.headBucket(x.bucket).acl();
        } else {
            x.authorizeOwner(StoreAction.GET_OBJECT);
            ObjectOperations.checkVersion(x);
            acl = x.store.head(x.bucket, x.key, Conditions.NONE).attributes().acl();
        }
        x.sendXml(200, CannedAcls.policy(x.store.headBucket(x.bucket).owner(), acl));
    }

    static void put(Exchange x) throws S3Exception, StoreException, IOException {
        if (x.key == null) {
            x.authorizeOwner(StoreAction.HEAD_BUCKET);
            x.authorizeOwner(StoreAction.CREATE_BUCKET);
            x.store.headBucket(x.bucket);
        } else {
            x.authorizeOwner(StoreAction.PUT_OBJECT);
            ObjectOperations.checkVersion(x);
            x.store.head(x.bucket, x.key, Conditions.NONE);
        }
        CannedAcl acl = CannedAcls.requested(x);
        if (x.header("x-amz-acl") == null) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "An AccessControlPolicy body is not implemented by "
                    + "this gateway; set a canned ACL (x-amz-acl)");
        }
        if (x.key == null) {
            BucketInfo bucket = x.store.headBucket(x.bucket);
            if (bucket.acl() != acl) {
                x.store.setBucketAcl(x.bucket, acl);
            }
        } else {
            rewriteObject(x, acl);
        }
        x.sendEmpty(200);
    }

    private static void rewriteObject(Exchange x, CannedAcl acl) throws S3Exception, StoreException, IOException {
        if (!x.store.supportsConditionalWrites()) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "The store " + x.store.name() + " cannot change an "
                    + "object's ACL safely (it has no conditional writes)");
        }
        try (ObjectContent current = x.store.open(x.bucket, x.key, Conditions.NONE)) {
            ObjectInfo info = current.info();
            if (info.attributes().acl() == acl) {
                return;
            }
            try (InputStream bytes = current.stream()) {
                x.store.put(x.bucket, x.key, bytes, info.size(), new PutOptions(info.attributes().withAcl(acl),
                        info.checksums().keySet(), CommitVerifier.ACCEPT_ALL, new WriteCondition(info.etag(), false)));
            }
        }
    }
}
