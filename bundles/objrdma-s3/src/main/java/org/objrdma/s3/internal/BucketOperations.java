package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.DeleteResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.xml.XmlBodies;
import org.objrdma.s3.xml.XmlWriter;

/** ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation, DeleteObjects. */
final class BucketOperations {

    private BucketOperations() {
    }

    static void create(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.CREATE_BUCKET);
        CannedAcl acl = CannedAcls.requested(x);
        // CreateBucketConfiguration (a LocationConstraint) is read, verified like any body, and not needed
        Bodies.discardSmall(x);
        try {
            x.store.createBucket(x.auth.accessKeyId(), x.bucket);
        } catch (StoreException e) {
            // S3's legacy us-east-1 behaviour: re-creating a bucket you own there succeeds (changing nothing);
            // in every other region it is 409 BucketAlreadyOwnedByYou
            if (e.error() != StoreError.BUCKET_ALREADY_OWNED_BY_YOU || !x.settings.region().equals("us-east-1")) {
                throw e;
            }
            x.response.header("Location", "/" + x.bucket);
            x.sendEmpty(200);
            return;
        }
        if (acl != CannedAcl.PRIVATE) {
            // created private, then opened: a failure in between leaves the bucket private, never more open
            x.store.setBucketAcl(x.bucket, acl);
        }
        x.response.header("Location", "/" + x.bucket);
        x.sendEmpty(200);
    }

    static void head(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.HEAD_BUCKET);
        x.store.headBucket(x.bucket);
        x.response.header("x-amz-bucket-region", x.settings.region());
        x.sendEmpty(200);
    }

    static void delete(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.DELETE_BUCKET);
        x.store.deleteBucket(x.bucket);
        x.sendEmpty(204);
    }

    static void location(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.HEAD_BUCKET);
        x.store.headBucket(x.bucket);
        // S3 reports us-east-1 as an empty constraint
        XmlWriter xml = XmlWriter.document("LocationConstraint", true);
        if (!x.settings.region().equals("us-east-1")) {
            xml.text(x.settings.region());
        }
        x.sendXml(200, xml);
    }

    static void deleteObjects(Exchange x) throws S3Exception, StoreException, IOException {
        // the bucket is authorized and found before a byte of the body is read; each key is authorized below
        x.authorize(StoreAction.HEAD_BUCKET);
        x.store.headBucket(x.bucket);
        XmlBodies.DeleteRequest request = XmlBodies.deleteObjects(Bodies.xml(x), x.settings.maxXmlBodyBytes(),
                StoreLimits.MAX_DELETE_KEYS);
        List<String> allowed = new ArrayList<>();
        List<DeleteResult> denied = new ArrayList<>();
        for (XmlBodies.ObjectToDelete o : request.objects()) {
            if (o.versionId() != null && !o.versionId().equals("null")) {
                denied.add(new DeleteResult(o.key(), StoreError.INVALID_ARGUMENT, "Invalid version id specified"));
            } else if (x.store.isAuthorized(x.auth.accessKeyId(), StoreAction.DELETE_OBJECT, x.bucket, o.key())) {
                allowed.add(o.key());
            } else {
                denied.add(new DeleteResult(o.key(), StoreError.ACCESS_DENIED, "Access Denied"));
            }
        }
        List<DeleteResult> results = new ArrayList<>(allowed.isEmpty() ? List.of() : x.store.deleteMany(x.bucket, allowed));
        results.addAll(denied);
        XmlWriter xml = XmlWriter.document("DeleteResult", true);
        for (DeleteResult r : results) {
            if (r.isDeleted()) {
                if (!request.quiet()) {
                    xml.start("Deleted").element("Key", r.key()).end();
                }
            } else {
                xml.start("Error").element("Key", r.key()).element("Code", r.error().s3Code())
                        .element("Message", r.message()).end();
            }
        }
        x.sendXml(200, xml);
    }
}
