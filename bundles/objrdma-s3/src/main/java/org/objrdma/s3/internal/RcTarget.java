package org.objrdma.s3.internal;

import org.objrdma.api.session.Op;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.UriEncoding;

/**
 * {@code x-amz-rdma-target}: {@code /bucket/key[?query]}, percent-decoded per segment. PUT allows only
 * {@code uploadId} with {@code partNumber} (UploadPart); GET allows only {@code partNumber}.
 *
 * @param text       the target as sent (stored in the session and re-parsed at READY)
 * @param uploadId   UploadPart's upload, or null
 * @param partNumber the part, 0 when none
 */
record RcTarget(String text, String bucket, String key, String uploadId, int partNumber) {

    static RcTarget parse(String text) throws S3Exception {
        if (text.length() > 2047 || !text.startsWith("/")) {
            throw RcErrors.bad("x-amz-rdma-target must be /bucket/key[?query], at most 2047 characters");
        }
        int q = text.indexOf('?');
        String path = q < 0 ? text.substring(1) : text.substring(1, q);
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw RcErrors.bad("x-amz-rdma-target must name a bucket and a key");
        }
        String bucket = UriEncoding.decode(path.substring(0, slash));
        String key = UriEncoding.decode(path.substring(slash + 1));
        String uploadId = null;
        int part = 0;
        if (q >= 0) {
            QueryString query = QueryString.parse(text.substring(q + 1));
            for (QueryString.Param p : query.params()) {
                switch (p.name()) {
                    case "uploadId" -> uploadId = p.value();
                    case "partNumber" -> part = partNumber(p.value());
                    default -> throw RcErrors.bad("x-amz-rdma-target allows only uploadId and partNumber, not "
                            + p.name());
                }
            }
        }
        return new RcTarget(text, bucket, key, uploadId, part);
    }

    private static int partNumber(String v) throws S3Exception {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= StoreLimits.MAX_PART_NUMBER) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw RcErrors.bad("partNumber must be 1.." + StoreLimits.MAX_PART_NUMBER);
    }

    void checkQueryFor(Op op) throws S3Exception {
        if (op == Op.PUT && (uploadId == null) != (partNumber == 0)) {
            throw RcErrors.bad("a PUT target names both uploadId and partNumber (UploadPart) or neither");
        }
        if (op == Op.GET && uploadId != null) {
            throw RcErrors.bad("a GET target allows only partNumber");
        }
    }

    /** UploadPart: the upload must exist before a session is spent on it. */
    void checkUploadExists(Exchange x) throws StoreException {
        if (uploadId != null) {
            x.store.listParts(bucket, key, uploadId, 0, 1);
        }
    }
}
