package org.objrdma.s3;

/** The S3 error codes this gateway answers with, each with the HTTP status S3 uses for it. */
public enum S3ErrorCode {
    ACCESS_DENIED("AccessDenied", 403, "Access Denied"),
    AUTHORIZATION_HEADER_MALFORMED("AuthorizationHeaderMalformed", 400, "The authorization header is malformed"),
    AUTHORIZATION_QUERY_PARAMETERS_ERROR("AuthorizationQueryParametersError", 400,
            "The presigned URL's authorization query parameters are malformed"),
    BAD_DIGEST("BadDigest", 400, "The digest you specified did not match the calculated digest"),
    BUCKET_ALREADY_OWNED_BY_YOU("BucketAlreadyOwnedByYou", 409, "Your previous request to create the named bucket succeeded and you already own it"),
    BUCKET_NOT_EMPTY("BucketNotEmpty", 409, "The bucket you tried to delete is not empty"),
    ENTITY_TOO_LARGE("EntityTooLarge", 400, "Your proposed upload exceeds the maximum allowed size"),
    ENTITY_TOO_SMALL("EntityTooSmall", 400, "Your proposed upload is smaller than the minimum allowed object size"),
    INCOMPLETE_BODY("IncompleteBody", 400, "You did not provide the number of bytes specified by the Content-Length HTTP header"),
    INTERNAL_ERROR("InternalError", 500, "We encountered an internal error. Please try again."),
    INVALID_ACCESS_KEY_ID("InvalidAccessKeyId", 403, "The AWS access key Id you provided does not exist in our records"),
    INVALID_ARGUMENT("InvalidArgument", 400, "Invalid Argument"),
    INVALID_BUCKET_NAME("InvalidBucketName", 400, "The specified bucket is not valid"),
    INVALID_DIGEST("InvalidDigest", 400, "The Content-MD5 you specified is not valid"),
    INVALID_PART("InvalidPart", 400, "One or more of the specified parts could not be found"),
    INVALID_PART_ORDER("InvalidPartOrder", 400, "The list of parts was not in ascending order"),
    INVALID_RANGE("InvalidRange", 416, "The requested range is not satisfiable"),
    INVALID_REQUEST("InvalidRequest", 400, "Invalid Request"),
    /** A browser POST upload's policy document is not valid. @since 1.3 */
    INVALID_POLICY_DOCUMENT("InvalidPolicyDocument", 400, "The content of the form does not meet the conditions "
            + "specified in the policy document"),
    /** @since 1.2 */
    INVALID_URI("InvalidURI", 400, "Couldn't parse the specified URI."),
    KEY_TOO_LONG("KeyTooLongError", 400, "Your key is too long"),
    MALFORMED_XML("MalformedXML", 400, "The XML you provided was not well-formed or did not validate against our published schema"),
    /** A browser POST upload's body is not well-formed multipart/form-data. @since 1.3 */
    MALFORMED_POST_REQUEST("MalformedPOSTRequest", 400,
            "The body of your POST request is not well-formed multipart/form-data"),
    MAX_MESSAGE_LENGTH_EXCEEDED("MaxMessageLengthExceeded", 400, "Your request was too big"),
    METHOD_NOT_ALLOWED("MethodNotAllowed", 405, "The specified method is not allowed against this resource"),
    MISSING_CONTENT_LENGTH("MissingContentLength", 411, "You must provide the Content-Length HTTP header"),
    NO_SUCH_BUCKET("NoSuchBucket", 404, "The specified bucket does not exist"),
    NO_SUCH_KEY("NoSuchKey", 404, "The specified key does not exist"),
    NO_SUCH_UPLOAD("NoSuchUpload", 404, "The specified multipart upload does not exist"),
    NOT_IMPLEMENTED("NotImplemented", 501, "A header or query you provided implies functionality that is not implemented"),
    PRECONDITION_FAILED("PreconditionFailed", 412, "At least one of the preconditions you specified did not hold"),
    REQUEST_TIMEOUT("RequestTimeout", 400,
            "Your socket connection to the server was not read from or written to within the timeout period"),
    REQUEST_TIME_TOO_SKEWED("RequestTimeTooSkewed", 403, "The difference between the request time and the server's time is too large"),
    SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", 403,
            "The request signature we calculated does not match the signature you provided. Check your key and signing method."),
    X_AMZ_CONTENT_SHA256_MISMATCH("XAmzContentSHA256Mismatch", 400,
            "The provided 'x-amz-content-sha256' header does not match what was computed");

    private final String code;
    private final int status;
    private final String defaultMessage;

    S3ErrorCode(String code, int status, String defaultMessage) {
        this.code = code;
        this.status = status;
        this.defaultMessage = defaultMessage;
    }

    /** The {@code Code} element, e.g. {@code NoSuchKey}. */
    public String code() {
        return code;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    public String defaultMessage() {
        return defaultMessage;
    }
}
