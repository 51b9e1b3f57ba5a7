/**
 * Object-store SPI: what a host object store implements so objrdma (its RDMA data plane and its S3
 * gateway) can authorize requests and move object bytes: buckets, objects read into staging memory or
 * streamed, puts from staging memory or a stream with a commit veto, listing, multipart uploads,
 * metadata, checksums, conditional reads, and a closed error set that maps 1:1 onto S3 error codes.
 *
 * <p>2.0.0: the 1.0 interface (head / read / put / upload-part on an {@code ObjectTarget}) was replaced
 * by the full SPI; {@link org.objrdma.api.store.ObjectStore} is a consumer type, so the added methods break
 * implementers, hence the major version.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.objrdma.api.store;
