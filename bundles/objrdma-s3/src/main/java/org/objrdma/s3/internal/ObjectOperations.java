package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.WriteCondition;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.UriEncoding;
import org.objrdma.s3.xml.XmlWriter;

/** PutObject, GetObject, HeadObject, DeleteObject, CopyObject. */
final class ObjectOperations {

    /** Bytes copied per write when streaming an object out. */
    static final int COPY_BUFFER = 64 * 1024;

    private static final String[][] RESPONSE_OVERRIDES = {
        {"response-content-type", "Content-Type"},
        {"response-content-language", "Content-Language"},
        {"response-expires", "Expires"},
        {"response-cache-control", "Cache-Control"},
        {"response-content-disposition", "Content-Disposition"},
        {"response-content-encoding", "Content-Encoding"},
    };

    private ObjectOperations() {
    }

    static void put(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.PUT_OBJECT);
        ObjectAttributes attributes = Attributes.from(x.request).withAcl(CannedAcls.requested(x));
        WriteCondition condition = ConditionalWrites.of(x);
        Bodies.Body body = Bodies.open(x);
        PutResult result = x.store.put(x.bucket, x.key, body.stream(), body.length(),
                new PutOptions(attributes, body.checksums(), body.verifier(), condition));
        x.response.header("ETag", Http.quote(result.etag()));
        Attributes.writeChecksums(x.response, result.checksums());
        x.sendEmpty(200);
    }

    static Conditions conditions(Exchange x, String prefix) {
        return new Conditions(x.header(prefix + "If-Match"), x.header(prefix + "If-None-Match"),
                Http.parseHttpDate(x.header(prefix + "If-Modified-Since")),
                Http.parseHttpDate(x.header(prefix + "If-Unmodified-Since")));
    }

    static void get(Exchange x, boolean head) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.GET_OBJECT);
        checkVersion(x);
        String partNumberParam = x.query.get("partNumber");
        String rangeHeader = x.header("Range");
        if (partNumberParam != null && rangeHeader != null) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "Cannot specify both Range header and partNumber query parameter");
        }
        int partNumber = partNumberParam == null ? 0
                : x.intParam("partNumber", 1, 1, org.objrdma.api.store.StoreLimits.MAX_PART_NUMBER);
        // a HEAD without partNumber needs only the object's record: the store's head, not open (a store may open by
        // starting the read itself, as the S3 adapter does with one whole-object GET)
        boolean recordOnly = head && partNumber == 0;
        try (ObjectContent content = recordOnly ? null : x.store.open(x.bucket, x.key, Conditions.NONE)) {
            ObjectInfo info = recordOnly ? x.store.head(x.bucket, x.key, Conditions.NONE) : content.info();
            x.checkOpenedReadable(info);
            // evaluated here, on the version just opened, so that a 304 can name it: S3 sends the ETag and
            // Last-Modified with Not Modified, and a client revalidating its cache needs them
            if (conditions(x, "").evaluate(info.etag(), info.lastModified()) == Conditions.Outcome.NOT_MODIFIED) {
                x.response.header("ETag", Http.quote(info.etag()));
                x.response.header("Last-Modified", Http.httpDate(info.lastModified()));
            }
            conditions(x, "").check(info.etag(), info.lastModified());
            Span span = partNumber > 0 ? Span.of(part(content, partNumber), info)
                    : Span.of(ByteRange.resolve(rangeHeader, info.size()), info);
            boolean checksumMode = "ENABLED".equalsIgnoreCase(x.header("x-amz-checksum-mode"));
            // S3 returns the whole-object checksum only for whole-object reads (part 1 of a single put is one)
            Attributes.write(x.response, info, checksumMode && (span.whole() && partNumber == 0
                    || partNumber > 0 && info.partsCount() == 0));
            if (partNumber > 0 && info.partsCount() > 0) {
                // as S3: the parts count only answers a partNumber request, and only for a multipart object
                x.response.header("x-amz-mp-parts-count", String.valueOf(span.partsCount()));
            }
            for (String[] o : RESPONSE_OVERRIDES) {
                String v = x.query.get(o[0]);
                if (v != null) {
                    x.response.header(o[1], v);
                }
            }
            if (span.ranged()) {
                x.response.header("Content-Range", "bytes " + span.offset() + "-" + span.last() + "/" + info.size());
            }
            x.response.status(span.ranged() ? 206 : 200);
            x.response.contentLength(span.length());
            if (head || span.length() == 0) {
                x.response.body().close();
                return;
            }
            try (InputStream in = content.stream(span.offset(), span.length()); OutputStream out = x.response.body()) {
                byte[] buf = new byte[(int) Math.min(COPY_BUFFER, span.length())];
                for (int n; (n = in.read(buf)) > 0;) {
                    out.write(buf, 0, n);
                }
            }
        }
    }

    /**
     * Part {@code n} of the version; a part number past the last part (or above 1 for an object from a single
     * put) is 400 InvalidPart, as S3-compatible servers and ceph's s3-tests expect of GET/HEAD, not the
     * store's 416 InvalidPartNumber.
     */
    private static PartRange part(ObjectContent content, int n) throws S3Exception, StoreException {
        try {
            return content.part(n);
        } catch (StoreException e) {
            if (e.error() == org.objrdma.api.store.StoreError.INVALID_PART_NUMBER) {
                throw new S3Exception(S3ErrorCode.INVALID_PART, e.detail());
            }
            throw e;
        }
    }

    /**
     * The bytes a GET / HEAD answers with. A Range or a partNumber is answered 206 with a Content-Range, as
     * S3 does even when the part is the whole object (part 1 of a single put); an empty part has no range
     * to print and is a plain 200.
     */
    record Span(long offset, long length, boolean ranged, int partsCount) {
        static Span of(Optional<ByteRange> range, ObjectInfo info) {
            return range.map(r -> new Span(r.offset(), r.length(), true, 0))
                    .orElseGet(() -> new Span(0, info.size(), false, 0));
        }

        static Span of(PartRange part, ObjectInfo info) {
            return new Span(part.offset(), part.length(), part.length() > 0, part.partsCount());
        }

        long last() {
            return offset + length - 1;
        }

        boolean whole() {
            return !ranged;
        }
    }

    static void checkVersion(Exchange x) throws S3Exception {
        String v = x.query.get("versionId");
        if (v != null && !v.equals("null")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid version id specified (versioning is not supported)");
        }
    }

    static void delete(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.DELETE_OBJECT);
        checkVersion(x);
        x.store.delete(x.bucket, x.key);
        x.sendEmpty(204);
    }

    /** {@code x-amz-copy-source}: {@code [/]bucket/key[?versionId=null]}, URL-encoded. */
    record Source(String bucket, String key) {
    }

    static Source copySource(Exchange x) throws S3Exception {
        String raw = x.header("x-amz-copy-source").strip();
        int q = raw.indexOf('?');
        if (q >= 0) {
            String rest = raw.substring(q + 1);
            if (!rest.equals("versionId=null")) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "x-amz-copy-source versions are not supported");
            }
            raw = raw.substring(0, q);
        }
        String decoded = UriEncoding.decode(raw);
        if (decoded.startsWith("/")) {
            decoded = decoded.substring(1);
        }
        int slash = decoded.indexOf('/');
        if (slash <= 0 || slash == decoded.length() - 1) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Copy Source must mention the source bucket and key: sourcebucket/sourcekey");
        }
        return new Source(decoded.substring(0, slash), decoded.substring(slash + 1));
    }

    static void copy(Exchange x) throws S3Exception, StoreException, IOException {
        Source source = copySource(x);
        x.authorize(StoreAction.GET_OBJECT, source.bucket(), source.key());
        x.authorize(StoreAction.PUT_OBJECT);
        String directive = x.header("x-amz-metadata-directive");
        CannedAcl acl = CannedAcls.requested(x);
        Conditions sourceConditions = conditions(x, "x-amz-copy-source-");
        ObjectAttributes replacement;
        if (directive == null || directive.equalsIgnoreCase("COPY")) {
            replacement = null;
            if (acl != CannedAcl.PRIVATE) {
                // the store copies no ACL: the source's headers come from its record, and the copy must be of
                // that same version (If-Match on its ETag, unless the client set one, which then held for it)
                ObjectInfo src = x.store.head(source.bucket(), source.key(), sourceConditions.ifMatch() == null
                        ? Conditions.NONE : sourceConditions);
                replacement = src.attributes().withAcl(acl);
                if (sourceConditions.ifMatch() == null) {
                    sourceConditions = new Conditions(Http.quote(src.etag()), sourceConditions.ifNoneMatch(),
                            sourceConditions.ifModifiedSince(), sourceConditions.ifUnmodifiedSince());
                }
            }
        } else if (directive.equalsIgnoreCase("REPLACE")) {
            replacement = Attributes.from(x.request).withAcl(acl);
        } else {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Unknown metadata directive '" + directive + "'");
        }
        PutResult result = x.store.copy(source.bucket(), source.key(), sourceConditions, x.bucket, x.key,
                replacement);
        Attributes.writeChecksums(x.response, result.checksums());
        XmlWriter xml = XmlWriter.document("CopyObjectResult", true)
                .element("LastModified", Http.isoDate(result.lastModified()))
                .element("ETag", Http.quote(result.etag()));
        result.checksums().forEach((alg, v) -> xml.element(alg.xmlElement(), v));
        x.sendXml(200, xml);
    }
}
