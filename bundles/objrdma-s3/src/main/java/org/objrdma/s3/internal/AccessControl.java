package org.objrdma.s3.internal;

import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * What the canned ACLs of buckets and objects grant to someone who is not the bucket's owner (an anonymous
 * request or another user of the store), asked only after the store's own owner check said no. Nothing is granted
 * while public access is off ({@code public.access.enabled = false}, S3's Block Public Access with its
 * IgnorePublicAcls), nor by a store that keeps no ACLs. Grants, as S3's for AllUsers / AuthenticatedUsers:
 * <ul>
 * <li>GetObject / HeadObject: the object's ACL grants READ; on a missing key only when the bucket's ACL grants
 *     READ, so that NoSuchKey is told only to whoever may list the bucket (anyone else: AccessDenied);</li>
 * <li>ListObjects and HeadBucket: the bucket's ACL grants READ;</li>
 * <li>PutObject and DeleteObject: the bucket is public-read-write (WRITE for everyone).</li>
 * </ul>
 * Nothing else (ACLs themselves, multipart uploads, bucket administration, the RDMA routes) is ever granted.
 */
final class AccessControl {

    private AccessControl() {
    }

    /**
     * Whether the ACLs grant {@code action} on {@code bucket}/{@code key} to the exchange's principal.
     *
     * @throws StoreException NO_SUCH_BUCKET when public access is on and the bucket does not exist (S3 tells
     *                        anyone that); other store failures
     */
    static boolean grants(Exchange x, StoreAction action, String bucket, String key) throws StoreException {
        if (!x.settings.publicAccess() || !x.store.supportsAcls() || bucket == null) {
            return false;
        }
        boolean authenticated = !x.anonymous;
        return switch (action) {
            case LIST_OBJECTS, HEAD_BUCKET -> bucketAcl(x, bucket).grantsReadTo(authenticated);
            case PUT_OBJECT, DELETE_OBJECT -> key != null && bucketAcl(x, bucket).grantsWriteToEveryone();
            case GET_OBJECT -> key != null && objectReadable(x, bucket, key, authenticated);
            default -> false;
        };
    }

    /** Whether the version just opened (which may be newer than the one {@link #grants} judged) is readable too. */
    static boolean grantsRead(Exchange x, ObjectInfo opened) {
        return x.settings.publicAccess() && opened.attributes().acl().grantsReadTo(!x.anonymous);
    }

    private static boolean objectReadable(Exchange x, String bucket, String key, boolean authenticated)
            throws StoreException {
        try {
            return x.store.head(bucket, key, Conditions.NONE).attributes().acl().grantsReadTo(authenticated);
        } catch (StoreException e) {
            if (e.error() == StoreError.NO_SUCH_KEY) {
                return bucketAcl(x, bucket).grantsReadTo(authenticated);
            }
            throw e;
        }
    }

    private static CannedAcl bucketAcl(Exchange x, String bucket) throws StoreException {
        return x.store.headBucket(bucket).acl();
    }
}
