/**
 * The S3 protocol layer, free of any servlet API: request and response abstractions, URI decoding and the
 * S3 error set. {@link org.objrdma.s3.S3Gateway} serves a request against an ObjectStore; a host store
 * with its own HTTP server implements {@link org.objrdma.s3.S3Request} and {@link org.objrdma.s3.S3Response}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package org.objrdma.s3;
