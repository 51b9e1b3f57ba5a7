/**
 * AWS Signature Version 4 for S3: header and presigned authentication, and the request-body verifiers
 * (aws-chunked decoding with chained chunk signatures and trailers, signed payload hashes).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.objrdma.s3.auth;
