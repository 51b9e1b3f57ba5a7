/**
 * The AWS SDK for Java v2 face of the objrdma client: {@link org.objrdma.client.sdk.RdmaS3} moves GetObject,
 * PutObject and UploadPart of an application's own {@code S3Client} over cuObject or hipobj-rc-v2, into and out of
 * registered memory, with the plain HTTP fallback the protocols define.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.client.sdk;
