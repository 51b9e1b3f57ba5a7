package org.objrdma.s3.internal;

import java.util.Locale;
import java.util.Set;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Settings;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.s3.xml.XmlWriter;

/**
 * The canned ACL a request asks for ({@code x-amz-acl} on CreateBucket, PutObject, CopyObject,
 * CreateMultipartUpload, PutBucketAcl, PutObjectAcl; the {@code acl} field of a browser POST), checked before
 * anything is changed, and the grants an ACL stands for in GetBucketAcl / GetObjectAcl.
 * <ul>
 * <li>no {@code x-amz-acl}: private;</li>
 * <li>a name that is no canned ACL: 400 InvalidArgument;</li>
 * <li>{@code aws-exec-read}, {@code log-delivery-write} (AWS services' grants) and {@code x-amz-grant-*}
 *     headers: 501 NotImplemented;</li>
 * <li>a public ACL (public-read, public-read-write, authenticated-read) while {@code public.access.enabled} is
 *     false: 403 AccessDenied, as S3 answers with Block Public Access on;</li>
 * <li>any ACL but private on a store that keeps none ({@code ObjectStore#supportsAcls()}): 501.</li>
 * </ul>
 */
final class CannedAcls {
    private static final Set<String> NOT_SERVED = Set.of("aws-exec-read", "log-delivery-write");
    static final String ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers";
    static final String AUTHENTICATED_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";

    private CannedAcls() {
    }

    /** The ACL of the request's {@code x-amz-acl} (private when absent), checked as above. */
    static CannedAcl requested(Exchange x) throws S3Exception {
        refuseGrantHeaders(x.request);
        return check(x.header("x-amz-acl"), x.settings, x.store);
    }

    /** The ACL named by {@code name} (an {@code x-amz-acl} value or form field; null: private), checked as above. */
    static CannedAcl check(String name, S3Settings settings, ObjectStore store) throws S3Exception {
        if (name == null) {
            return CannedAcl.PRIVATE;
        }
        CannedAcl acl = CannedAcl.of(name).orElse(null);
        if (acl == null) {
            if (NOT_SERVED.contains(name.strip().toLowerCase(Locale.ROOT))) {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "The canned ACL '" + name.strip()
                        + "' (a grant to an AWS service) is not implemented by this gateway");
            }
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "'" + name.strip() + "' is not a canned ACL");
        }
        if (acl.isPublic() && !settings.publicAccess()) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "The canned ACL '" + acl.s3Name() + "' is public, and "
                    + "public access is blocked on this gateway (org.objrdma.s3 public.access.enabled = false)");
        }
        if (acl != CannedAcl.PRIVATE && !store.supportsAcls()) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "The store " + store.name() + " keeps no ACLs: only "
                    + "the canned ACL 'private' is served");
        }
        return acl;
    }

    /** {@code x-amz-grant-*} headers (explicit grants, not a canned ACL) are not implemented: 501. */
    static void refuseGrantHeaders(S3Request request) throws S3Exception {
        for (String name : request.headerNames()) {
            if (name.toLowerCase(Locale.ROOT).startsWith("x-amz-grant-")) {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "ACL grants (" + name + ") are not implemented by "
                        + "this gateway: set a canned ACL (x-amz-acl)");
            }
        }
    }

    /**
     * An AccessControlPolicy document: the groups {@code acl} grants to, then the owner's FULL_CONTROL (the order
     * RGW answers in, which ceph's s3-tests compare against). Objects are owned by their bucket's owner, so
     * {@code owner} is that for both.
     */
    static XmlWriter policy(String owner, CannedAcl acl) {
        XmlWriter xml = XmlWriter.document("AccessControlPolicy", true)
                .start("Owner").element("ID", owner).element("DisplayName", owner).end()
                .start("AccessControlList");
        switch (acl) {
            case PUBLIC_READ -> group(xml, ALL_USERS, "READ");
            case PUBLIC_READ_WRITE -> {
                group(xml, ALL_USERS, "READ");
                group(xml, ALL_USERS, "WRITE");
            }
            case AUTHENTICATED_READ -> group(xml, AUTHENTICATED_USERS, "READ");
            default -> {
                // private and the bucket-owner ACLs: the owner is the bucket's owner, whose grant follows
            }
        }
        grant(xml.start("Grant").start("Grantee", "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
                "xsi:type", "CanonicalUser").element("ID", owner).element("DisplayName", owner).end(), "FULL_CONTROL");
        return xml.end();
    }

    private static void group(XmlWriter xml, String uri, String permission) {
        grant(xml.start("Grant").start("Grantee", "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
                "xsi:type", "Group").element("URI", uri).end(), permission);
    }

    private static void grant(XmlWriter xml, String permission) {
        xml.element("Permission", permission).end();
    }
}
