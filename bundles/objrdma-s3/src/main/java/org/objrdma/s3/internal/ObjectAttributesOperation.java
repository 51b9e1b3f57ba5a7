package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.xml.XmlWriter;

/**
 * GetObjectAttributes ({@code GET ?attributes}): the attributes {@code x-amz-object-attributes} names, among
 * ETag, Checksum, ObjectParts (its PartsCount, for a multipart object only), StorageClass (always STANDARD) and
 * ObjectSize, without the object's bytes. No or an unknown attribute name is 400 InvalidArgument. The same
 * access as GetObject.
 */
final class ObjectAttributesOperation {

    private static final Set<String> KNOWN = Set.of("etag", "checksum", "objectparts", "storageclass", "objectsize");

    private ObjectAttributesOperation() {
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.GET_OBJECT);
        ObjectOperations.checkVersion(x);
        Set<String> asked = new LinkedHashSet<>();
        for (String header : x.request.headers("x-amz-object-attributes")) {
            for (String name : header.split(",")) {
                String n = name.strip().toLowerCase(Locale.ROOT);
                if (!n.isEmpty()) {
                    if (!KNOWN.contains(n)) {
                        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid attribute name specified: '"
                                + name.strip() + "'");
                    }
                    asked.add(n);
                }
            }
        }
        if (asked.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "x-amz-object-attributes must name at least one of "
                    + "ETag, Checksum, ObjectParts, StorageClass, ObjectSize");
        }
        ObjectInfo info = x.store.head(x.bucket, x.key, ObjectOperations.conditions(x, ""));
        x.response.header("Last-Modified", Http.httpDate(info.lastModified()));
        XmlWriter xml = XmlWriter.document("GetObjectAttributesResponse", true);
        if (asked.contains("etag")) {
            xml.element("ETag", info.etag());
        }
        if (asked.contains("checksum") && !info.checksums().isEmpty()) {
            xml.start("Checksum");
            info.checksums().forEach((alg, v) -> xml.element(alg.xmlElement(), v));
            xml.end();
        }
        if (asked.contains("objectparts") && info.partsCount() > 0) {
            xml.start("ObjectParts").element("PartsCount", info.partsCount()).end();
        }
        if (asked.contains("storageclass")) {
            xml.element("StorageClass", "STANDARD");
        }
        if (asked.contains("objectsize")) {
            xml.element("ObjectSize", info.size());
        }
        x.sendXml(200, xml);
    }
}
