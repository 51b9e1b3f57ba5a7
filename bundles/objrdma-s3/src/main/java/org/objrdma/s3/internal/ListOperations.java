package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.function.UnaryOperator;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.UriEncoding;
import org.objrdma.s3.xml.XmlWriter;

/** ListObjectsV2, ListObjects (V1), ListMultipartUploads, ListParts. */
final class ListOperations {

    private ListOperations() {
    }

    /** {@code encoding-type=url} asks for keys and prefixes URL-encoded (the aws CLI always asks). */
    private static UnaryOperator<String> encoding(Exchange x) throws S3Exception {
        String e = x.query.get("encoding-type");
        if (e == null) {
            return s -> s;
        }
        if (!e.equals("url")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid Encoding Method specified in Request");
        }
        return s -> s == null ? null : UriEncoding.encode(s, true);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** ListObjects: V2 for {@code list-type=2}, V1 without {@code list-type}; another list-type is InvalidArgument. */
    static void list(Exchange x) throws S3Exception, StoreException, IOException {
        if ("2".equals(x.query.get("list-type"))) {
            listV2(x);
        } else if (x.query.has("list-type")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "list-type must be 2");
        } else {
            listV1(x);
        }
    }

    static void listV2(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.LIST_OBJECTS);
        UnaryOperator<String> enc = encoding(x);
        int maxKeys = x.intParam("max-keys", StoreLimits.MAX_KEYS, 0, Integer.MAX_VALUE);
        String prefix = x.query.get("prefix");
        String delimiter = x.query.get("delimiter");
        String token = x.query.get("continuation-token");
        String startAfter = x.query.get("start-after");
        ListPage page = x.store.list(x.bucket, new ListRequest(prefix, delimiter, maxKeys, token, startAfter));
        boolean owner = "true".equals(x.query.get("fetch-owner"));
        XmlWriter xml = XmlWriter.document("ListBucketResult", true)
                .element("Name", x.bucket)
                .element("Prefix", enc.apply(prefix == null ? "" : prefix))
                .element("Delimiter", enc.apply(emptyToNull(delimiter)))
                .element("MaxKeys", Math.min(maxKeys, StoreLimits.MAX_KEYS))
                .element("KeyCount", page.keyCount())
                .element("IsTruncated", page.truncated())
                .element("EncodingType", x.query.get("encoding-type"))
                .element("ContinuationToken", token)
                .element("NextContinuationToken", page.nextContinuationToken())
                .element("StartAfter", enc.apply(emptyToNull(startAfter)));
        contents(xml, page, enc, owner ? objectOwner(x) : null);
        x.sendXml(200, xml);
    }

    static void listV1(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.LIST_OBJECTS);
        UnaryOperator<String> enc = encoding(x);
        int maxKeys = x.intParam("max-keys", StoreLimits.MAX_KEYS, 0, Integer.MAX_VALUE);
        String prefix = x.query.get("prefix");
        String delimiter = x.query.get("delimiter");
        String marker = x.query.get("marker");
        ListPage page = x.store.list(x.bucket, new ListRequest(prefix, delimiter, maxKeys, null, marker));
        String nextMarker = null;
        if (page.truncated() && delimiter != null && !delimiter.isEmpty()) {
            // the larger of the last key and the last common prefix, as S3 computes it
            String lastKey = page.objects().isEmpty() ? null : page.objects().getLast().key();
            String lastPrefix = page.commonPrefixes().isEmpty() ? null : page.commonPrefixes().getLast();
            nextMarker = lastKey == null ? lastPrefix : lastPrefix == null ? lastKey
                    : Utf8Order.compare(lastKey, lastPrefix) > 0 ? lastKey : lastPrefix;
        }
        XmlWriter xml = XmlWriter.document("ListBucketResult", true)
                .element("Name", x.bucket)
                // V1's Prefix is echoed as sent even under encoding-type=url (S3 encodes only Delimiter, Marker,
                // NextMarker and keys there; boto3 decodes exactly those, so an encoded "\n" would reach it as %0A)
                .element("Prefix", prefix == null ? "" : prefix)
                .element("Marker", enc.apply(marker == null ? "" : marker))
                .element("NextMarker", enc.apply(nextMarker))
                .element("MaxKeys", Math.min(maxKeys, StoreLimits.MAX_KEYS))
                .element("Delimiter", enc.apply(emptyToNull(delimiter)))
                .element("IsTruncated", page.truncated())
                .element("EncodingType", x.query.get("encoding-type"));
        contents(xml, page, enc, objectOwner(x));
        x.sendXml(200, xml);
    }

    /** Every object is owned by its bucket's owner (an anonymous write into a public-read-write bucket too). */
    private static String objectOwner(Exchange x) throws StoreException {
        return x.store.headBucket(x.bucket).owner();
    }

    /** {@code owner}: the Owner element of each entry, or null for none. */
    private static void contents(XmlWriter xml, ListPage page, UnaryOperator<String> enc, String owner) {
        for (ObjectSummary o : page.objects()) {
            xml.start("Contents").element("Key", enc.apply(o.key()))
                    .element("LastModified", Http.isoDate(o.lastModified()))
                    .element("ETag", Http.quote(o.etag())).element("Size", o.size())
                    .element("StorageClass", "STANDARD");
            if (owner != null) {
                xml.start("Owner").element("ID", owner).element("DisplayName", owner).end();
            }
            xml.end();
        }
        for (String p : page.commonPrefixes()) {
            xml.start("CommonPrefixes").element("Prefix", enc.apply(p)).end();
        }
    }

    static void listUploads(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.LIST_MULTIPART_UPLOADS);
        UnaryOperator<String> enc = encoding(x);
        int max = x.intParam("max-uploads", StoreLimits.MAX_KEYS, 0, Integer.MAX_VALUE);
        String prefix = x.query.get("prefix");
        String keyMarker = x.query.get("key-marker");
        String uploadIdMarker = x.query.get("upload-id-marker");
        if (x.query.get("delimiter") != null && !x.query.get("delimiter").isEmpty()) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "ListMultipartUploads with a delimiter is not implemented");
        }
        UploadsPage page = x.store.listMultipartUploads(x.bucket,
                new ListUploadsRequest(prefix, keyMarker, uploadIdMarker, max));
        XmlWriter xml = XmlWriter.document("ListMultipartUploadsResult", true)
                .element("Bucket", x.bucket)
                .element("KeyMarker", enc.apply(keyMarker == null ? "" : keyMarker))
                .element("UploadIdMarker", uploadIdMarker == null ? "" : uploadIdMarker)
                .element("NextKeyMarker", enc.apply(page.nextKeyMarker()))
                .element("NextUploadIdMarker", page.nextUploadIdMarker())
                .element("Prefix", enc.apply(prefix == null ? "" : prefix))
                .element("MaxUploads", Math.min(max, StoreLimits.MAX_KEYS))
                .element("IsTruncated", page.truncated())
                .element("EncodingType", x.query.get("encoding-type"));
        String me = x.auth.accessKeyId();
        for (UploadInfo u : page.uploads()) {
            xml.start("Upload").element("Key", enc.apply(u.key())).element("UploadId", u.uploadId())
                    .start("Initiator").element("ID", me).element("DisplayName", me).end()
                    .start("Owner").element("ID", me).element("DisplayName", me).end()
                    .element("StorageClass", "STANDARD")
                    .element("Initiated", Http.isoDate(u.initiated()));
            if (u.checksumAlgorithm() != null) {
                xml.element("ChecksumAlgorithm", u.checksumAlgorithm().s3Name());
            }
            xml.end();
        }
        x.sendXml(200, xml);
    }

    static void listParts(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.LIST_PARTS);
        int marker = x.intParam("part-number-marker", 0, 0, StoreLimits.MAX_PART_NUMBER);
        int max = x.intParam("max-parts", 1000, 0, Integer.MAX_VALUE);
        PartsPage page = x.store.listParts(x.bucket, x.key, uploadId, marker, max);
        String me = x.auth.accessKeyId();
        XmlWriter xml = XmlWriter.document("ListPartsResult", true)
                .element("Bucket", x.bucket).element("Key", x.key).element("UploadId", uploadId)
                .start("Initiator").element("ID", me).element("DisplayName", me).end()
                .start("Owner").element("ID", me).element("DisplayName", me).end()
                .element("StorageClass", "STANDARD")
                .element("PartNumberMarker", marker)
                .element("NextPartNumberMarker", page.truncated() ? page.nextPartNumberMarker() : null)
                .element("MaxParts", Math.min(max, 1000))
                .element("IsTruncated", page.truncated());
        if (page.upload().checksumAlgorithm() != null) {
            xml.element("ChecksumAlgorithm", page.upload().checksumAlgorithm().s3Name());
        }
        for (PartInfo p : page.parts()) {
            xml.start("Part").element("PartNumber", p.partNumber())
                    .element("LastModified", Http.isoDate(p.lastModified()))
                    .element("ETag", Http.quote(p.etag())).element("Size", p.size());
            p.checksums().forEach((alg, v) -> xml.element(alg.xmlElement(), v));
            xml.end();
        }
        x.sendXml(200, xml);
    }
}
