package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.Set;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.xml.XmlWriter;

/**
 * {@code ?acl} on a bucket or object, as far as this gateway's access model reaches: every bucket and object is
 * private to the bucket's owner, so GetBucketAcl / GetObjectAcl answer that one grant (the owner's FULL_CONTROL),
 * and PutBucketAcl / PutObjectAcl accept the canned ACLs that mean exactly that ({@code private},
 * {@code bucket-owner-full-control}). Any ACL that would grant someone else access (public-read, grants, an
 * AccessControlPolicy body) is {@code 501 NotImplemented} and changes nothing, so nothing becomes readable by
 * accident; a name that is no canned ACL is {@code 400 InvalidArgument}. The owner checks are the operations'
 * own: only who may read (write) the object or bucket may read (set) its ACL.
 */
final class AclOperations {

    /** S3's canned ACL names. */
    private static final Set<String> CANNED = Set.of("private", "public-read", "public-read-write", "authenticated-read",
            "aws-exec-read", "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write");
    /** The canned ACLs this gateway's model already is (owner-only). */
    private static final Set<String> OWNER_ONLY = Set.of("private", "bucket-owner-full-control");

    private AclOperations() {
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        if (x.key == null) {
            x.authorize(StoreAction.HEAD_BUCKET);
        } else {
            x.authorize(StoreAction.GET_OBJECT);
            ObjectOperations.checkVersion(x);
            x.store.head(x.bucket, x.key, Conditions.NONE);
        }
        String owner = owner(x);
        x.sendXml(200, XmlWriter.document("AccessControlPolicy", true)
                .start("Owner").element("ID", owner).element("DisplayName", owner).end()
                .start("AccessControlList").start("Grant")
                .start("Grantee", "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance", "xsi:type", "CanonicalUser")
                .element("ID", owner).element("DisplayName", owner).end()
                .element("Permission", "FULL_CONTROL").end().end());
    }

    static void put(Exchange x) throws S3Exception, StoreException, IOException {
        if (x.key == null) {
            x.authorize(StoreAction.HEAD_BUCKET);
            x.authorize(StoreAction.CREATE_BUCKET);
            x.store.headBucket(x.bucket);
        } else {
            x.authorize(StoreAction.PUT_OBJECT);
            ObjectOperations.checkVersion(x);
            x.store.head(x.bucket, x.key, Conditions.NONE);
        }
        checkCanned(x);
        for (String name : x.request.headerNames()) {
            if (name.toLowerCase(java.util.Locale.ROOT).startsWith("x-amz-grant-")) {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "ACL grants (" + name + ") are not implemented by "
                        + "this gateway: buckets and objects are private to the bucket's owner");
            }
        }
        if (x.header("x-amz-acl") == null) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "An AccessControlPolicy body is not implemented by "
                    + "this gateway; set a canned ACL (x-amz-acl: private)");
        }
        x.sendEmpty(200);
    }

    /** The {@code x-amz-acl} of a PutBucketAcl / PutObjectAcl: no canned ACL is InvalidArgument, an opening one 501. */
    private static void checkCanned(Exchange x) throws S3Exception {
        String acl = x.header("x-amz-acl");
        if (acl == null) {
            return;
        }
        String name = acl.strip();
        if (!CANNED.contains(name)) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "'" + name + "' is not a canned ACL");
        }
        if (!OWNER_ONLY.contains(name)) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "The canned ACL '" + name + "' is not implemented by "
                    + "this gateway: buckets and objects are private to the bucket's owner (use private)");
        }
    }

    private static String owner(Exchange x) throws StoreException {
        String owner = x.store.headBucket(x.bucket).owner();
        return owner == null ? x.auth.accessKeyId() : owner;
    }
}
