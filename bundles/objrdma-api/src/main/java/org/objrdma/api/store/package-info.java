/**
 * Object-store SPI: what a host object store implements so objrdma (its RDMA data plane and its S3
 * gateway) can authorize requests and move object bytes: buckets, objects read into staging memory or
 * streamed, puts from staging memory or a stream with a commit veto, listing, multipart uploads,
 * metadata, checksums, conditional reads, and a closed error set that maps 1:1 onto S3 error codes.
 *
 * <p>2.0.0: the 1.0 interface (head / read / put / upload-part on an {@code ObjectTarget}) was replaced
 * by the full SPI; {@link org.objrdma.api.store.ObjectStore} is a consumer type, so the added methods break
 * implementers, hence the major version.
 *
 * <p>2.1.0: {@link org.objrdma.api.store.ObjectContent#part(int)} (the byte range of part N and the
 * part count of an opened version, for GET / HEAD {@code ?partNumber=N}), the value type
 * {@link org.objrdma.api.store.PartRange}, and the errors {@code INVALID_PART_NUMBER} and
 * {@code NOT_IMPLEMENTED}. Minor: the method has a default, so a store compiled against 2.0 still loads
 * and links (its import range {@code [2.0,3)} accepts 2.1) and keeps answering as before for single-put
 * objects; only a store that completes multipart uploads must override it to serve their parts (the
 * default answers NOT_IMPLEMENTED for those). Code that switches over {@code StoreError} without a
 * default branch sees two new members.
 *
 * <p>2.2.0 (issue 25): S3's conditional writes ({@link org.objrdma.api.store.WriteCondition} in
 * {@link org.objrdma.api.store.PutOptions#condition()}, with
 * {@link org.objrdma.api.store.ObjectStore#supportsConditionalWrites()}, default false, so a 2.1 store is
 * refused conditional writes rather than ignoring them), and the repeated-completion contract of
 * {@code completeMultipartUpload} ({@link org.objrdma.api.store.CompletedUpload}). Minor: the default
 * method and the kept three-argument {@code PutOptions} constructor keep 2.1 code compiling and linking.
 *
 * <p>2.3.0 (issue 29): {@link org.objrdma.api.store.CompletionRecords}, the in-memory completion records the
 * embedded store and the S3 adapter each kept a copy of. Minor: a class added, nothing changed.
 *
 * <p>2.4.0 (issue 25): canned ACLs ({@link org.objrdma.api.store.CannedAcl}) kept with buckets
 * ({@link org.objrdma.api.store.BucketInfo#acl()}, {@code ObjectStore#setBucketAcl}) and committed with objects
 * ({@link org.objrdma.api.store.ObjectAttributes#acl()}), with {@code ObjectStore#supportsAcls()} (default false,
 * so a 2.3 store is refused every ACL but private rather than dropping it). Minor: default methods, and the
 * records keep their 2.3 constructors.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.4.0")
package org.objrdma.api.store;
