package org.objrdma.s3.internal;

import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;

/**
 * {@code OPTIONS}, a browser's CORS preflight, answered as S3 answers it for a bucket without a CORS configuration
 * (this gateway stores none): without {@code Origin} or {@code Access-Control-Request-Method} it is
 * {@code 400 BadRequest}, else {@code 403 AccessForbidden}. Never signed (browsers send preflights bare), so it is
 * answered before authentication and looks nothing up: the answer is the same whether the bucket exists or not.
 */
final class CorsPreflight {

    private CorsPreflight() {
    }

    static S3Exception answer(S3Request request) {
        if (request.header("Origin") == null) {
            return new S3Exception("BadRequest", 400, "Insufficient information. Origin request header needed.");
        }
        String method = request.header("Access-Control-Request-Method");
        if (method == null) {
            return new S3Exception("BadRequest", 400, "Invalid Access-Control-Request-Method: null");
        }
        return new S3Exception("AccessForbidden", 403, "CORSResponse: This CORS request is not allowed (this gateway "
                + "has no CORS configuration for any bucket).");
    }
}
