package org.objrdma.s3.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.UriEncoding;
import org.objrdma.s3.xml.XmlBodies;
import org.objrdma.s3.xml.XmlWriter;

/** CreateMultipartUpload, UploadPart, UploadPartCopy, CompleteMultipartUpload, AbortMultipartUpload. */
final class MultipartOperations {

    private MultipartOperations() {
    }

    static void create(Exchange x) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.PUT_OBJECT);
        ObjectAttributes attributes = Attributes.from(x.request).withAcl(CannedAcls.requested(x));
        Optional<ChecksumAlgorithm> algorithm = Bodies.algorithmHeader(x);
        UploadInfo upload = x.store.createMultipartUpload(x.bucket, x.key, attributes, algorithm.orElse(null));
        algorithm.ifPresent(a -> x.response.header("x-amz-checksum-algorithm", a.s3Name()));
        x.sendXml(200, XmlWriter.document("InitiateMultipartUploadResult", true)
                .element("Bucket", x.bucket).element("Key", x.key).element("UploadId", upload.uploadId()));
    }

    static int partNumber(Exchange x) throws S3Exception, StoreException {
        String v = x.query.get("partNumber");
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part number must be an integer between 1 and "
                    + StoreLimits.MAX_PART_NUMBER + ", inclusive");
        }
        StoreLimits.validatePartNumber(n);
        return n;
    }

    static void uploadPart(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.PUT_OBJECT);
        int n = partNumber(x);
        Bodies.Body body = Bodies.open(x);
        PartInfo part = x.store.uploadPart(x.bucket, x.key, uploadId, n, body.stream(), body.length(),
                PutOptions.DEFAULT.withChecksums(body.checksums()).withVerifier(body.verifier()));
        x.response.header("ETag", Http.quote(part.etag()));
        Attributes.writeChecksums(x.response, part.checksums());
        x.sendEmpty(200);
    }

    /**
     * UploadPartCopy: the store SPI has no part copy, so the source range is streamed from the store into
     * a part (bounded memory, never a whole-object buffer).
     */
    static void uploadPartCopy(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.PUT_OBJECT);
        int n = partNumber(x);
        ObjectOperations.Source source = ObjectOperations.copySource(x);
        x.authorize(StoreAction.GET_OBJECT, source.bucket(), source.key());
        try (ObjectContent content = x.store.open(source.bucket(), source.key(),
                org.objrdma.api.store.Conditions.NONE)) {
            ObjectOperations.conditions(x, "x-amz-copy-source-").checkCopySource(content.info().etag(),
                    content.info().lastModified());
            long size = content.info().size();
            String rangeHeader = x.header("x-amz-copy-source-range");
            long offset = 0;
            long length = size;
            if (rangeHeader != null) {
                if (!rangeHeader.strip().matches("bytes=\\d+-\\d+")) {
                    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                            "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy");
                }
                Optional<ByteRange> r = ByteRange.resolve(rangeHeader, size);
                String[] ends = rangeHeader.strip().substring(6).split("-");
                if (r.isEmpty() || Long.parseLong(ends[1]) >= size) {
                    throw new S3Exception(S3ErrorCode.INVALID_RANGE, "The x-amz-copy-source-range " + rangeHeader
                            + " is not inside the source object of " + size + " bytes");
                }
                offset = r.get().offset();
                length = r.get().length();
            }
            PartInfo part;
            try (InputStream in = length == 0 ? new ByteArrayInputStream(new byte[0]) : content.stream(offset, length)) {
                part = x.store.uploadPart(x.bucket, x.key, uploadId, n, in, length,
                        PutOptions.DEFAULT.withVerifier(CommitVerifier.ACCEPT_ALL));
            }
            XmlWriter xml = XmlWriter.document("CopyPartResult", true)
                    .element("LastModified", Http.isoDate(part.lastModified()))
                    .element("ETag", Http.quote(part.etag()));
            part.checksums().forEach((alg, v) -> xml.element(alg.xmlElement(), v));
            x.sendXml(200, xml);
        }
    }

    static void complete(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.PUT_OBJECT);
        // x-amz-checksum-* here is the object's checksum (checked below), not a digest of the XML
        Map<ChecksumAlgorithm, String> declared = Bodies.declaredObjectChecksums(x);
        List<XmlBodies.CompletedPart> listed = XmlBodies.completeMultipartUpload(Bodies.xml(x, false),
                x.settings.maxXmlBodyBytes(), StoreLimits.MAX_PART_NUMBER);
        List<CompletedPart> parts = new ArrayList<>(listed.size());
        for (XmlBodies.CompletedPart p : listed) {
            Map<ChecksumAlgorithm, String> checksums = new java.util.EnumMap<>(ChecksumAlgorithm.class);
            for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
                String v = p.checksums().get(a.xmlElement());
                if (v != null) {
                    checksums.put(a, v);
                }
            }
            parts.add(new CompletedPart(p.partNumber(), p.etag(), checksums));
        }
        parts = RepeatedPartNumbers.collapse(x.store, x.bucket, x.key, uploadId, parts);
        checkDeclaredChecksums(declared, parts);
        PutResult result = x.store.completeMultipartUpload(x.bucket, x.key, uploadId, parts);
        XmlWriter xml = XmlWriter.document("CompleteMultipartUploadResult", true)
                .element("Location", x.origin() + "/" + x.bucket + "/" + UriEncoding.encode(x.key, true))
                .element("Bucket", x.bucket).element("Key", x.key)
                .element("ETag", Http.quote(result.etag()));
        result.checksums().forEach((alg, v) -> xml.element(alg.xmlElement(), v));
        x.sendXml(200, xml);
    }

    /**
     * The object checksum a CompleteMultipartUpload declares ({@code x-amz-checksum-<alg>}: S3's composite,
     * {@code base64-N}, or its base64 alone) must be the composite of the part checksums the request lists, else
     * 400 BadDigest before anything is completed; a part listed without that algorithm's checksum cannot match.
     */
    private static void checkDeclaredChecksums(Map<ChecksumAlgorithm, String> declared, List<CompletedPart> parts)
            throws S3Exception {
        for (Map.Entry<ChecksumAlgorithm, String> e : declared.entrySet()) {
            ChecksumAlgorithm a = e.getKey();
            List<String> values = new ArrayList<>(parts.size());
            for (CompletedPart p : parts) {
                String v = p.checksums().get(a);
                if (v == null || !a.isWellFormed(v)) {
                    throw new S3Exception(S3ErrorCode.BAD_DIGEST, "The " + a.s3Name() + " of the object cannot be "
                            + "checked: part " + p.partNumber() + " is listed without a well-formed " + a.xmlElement());
                }
                values.add(v);
            }
            String composite = a.composite(values);
            String sent = e.getValue();
            if (!sent.equals(composite) && !sent.equals(composite.substring(0, composite.lastIndexOf('-')))) {
                throw new S3Exception(S3ErrorCode.BAD_DIGEST, "The " + a.s3Name() + " you specified (" + sent
                        + ") is not the composite of the listed parts' checksums (" + composite + ")");
            }
        }
    }

    static void abort(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        x.authorize(StoreAction.ABORT_MULTIPART_UPLOAD);
        x.store.abortMultipartUpload(x.bucket, x.key, uploadId);
        x.sendEmpty(204);
    }
}
