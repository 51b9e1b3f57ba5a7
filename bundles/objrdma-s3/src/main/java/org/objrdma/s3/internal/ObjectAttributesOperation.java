package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.xml.XmlWriter;

/**
 * GetObjectAttributes ({@code GET ?attributes}): the attributes {@code x-amz-object-attributes} names, among
 * ETag, Checksum, ObjectParts, StorageClass (always STANDARD) and ObjectSize, without the object's bytes. No or
 * an unknown attribute name is 400 InvalidArgument. The same access as GetObject.
 *
 * <p>ObjectParts, for a multipart object only: PartsCount and a page of its parts (number and size, from the
 * store's part layout; per-part checksums are not kept after completion, so none are listed), paged as S3 does by
 * {@code x-amz-max-parts} (0..1000, default 1000) and {@code x-amz-part-number-marker} (the parts after it), with
 * PartNumberMarker, NextPartNumberMarker (the last part listed), MaxParts and IsTruncated.
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
        if (asked.contains("objectparts")) {
            // the part sizes come from the opened version, which is the one every other attribute describes
            try (ObjectContent content = x.store.open(x.bucket, x.key, ObjectOperations.conditions(x, ""))) {
                answer(x, asked, content.info(), content);
            }
        } else {
            answer(x, asked, x.store.head(x.bucket, x.key, ObjectOperations.conditions(x, "")), null);
        }
    }

    private static void answer(Exchange x, Set<String> asked, ObjectInfo info, ObjectContent content)
            throws S3Exception, StoreException, IOException {
        x.checkOpenedReadable(info);
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
        if (content != null && info.partsCount() > 0) {
            objectParts(x, xml, content, info.partsCount());
        }
        if (asked.contains("storageclass")) {
            xml.element("StorageClass", "STANDARD");
        }
        if (asked.contains("objectsize")) {
            xml.element("ObjectSize", info.size());
        }
        x.sendXml(200, xml);
    }

    private static void objectParts(Exchange x, XmlWriter xml, ObjectContent content, int count)
            throws S3Exception, StoreException {
        int maxParts = intHeader(x, "x-amz-max-parts", 1000, 0, 1000);
        int marker = intHeader(x, "x-amz-part-number-marker", 0, 0, StoreLimits.MAX_PART_NUMBER);
        int last = (int) Math.min(count, (long) marker + maxParts);
        xml.start("ObjectParts").element("PartsCount", count).element("PartNumberMarker", marker)
                .element("NextPartNumberMarker", Math.max(marker, last)).element("MaxParts", maxParts)
                .element("IsTruncated", last < count);
        for (int n = marker + 1; n <= last; n++) {
            xml.start("Part").element("PartNumber", n).element("Size", content.part(n).length()).end();
        }
        xml.end();
    }

    /** An integer header with a default; a malformed or out-of-range value is InvalidArgument. */
    private static int intHeader(Exchange x, String name, int dflt, int min, int max) throws S3Exception {
        String v = x.header(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, name + " must be an integer between " + min + " and "
                + max + ", was '" + v + "'");
    }
}
