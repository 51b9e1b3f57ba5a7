/**
 * The RDMA part of the gateway's protocol layer, container-independent: the services the RDMA paths use
 * ({@link org.objrdma.s3.rdma.RdmaServices}), their settings and the header names of both wire protocols
 * (cuObject's {@code x-amz-rdma-token} on GetObject / PutObject / UploadPart, hipobj-rc-v2's
 * {@code POST /.hipobj-rc/*} routes). A host store's own HTTP stack passes an {@code RdmaServices} to
 * {@link org.objrdma.s3.S3Gateway} and gets both protocols.
 *
 * <p>1.2.0: {@link org.objrdma.s3.rdma.RcConnections} and {@link org.objrdma.s3.rdma.RcConnectionSettings}
 * (cuObject over RC connections, {@code POST /.s3rdma-rc/*}); {@link org.objrdma.s3.rdma.RdmaSettings#declinedPut}.
 *
 * <p>1.1.0: {@link org.objrdma.s3.rdma.RdmaSettings#foreignSessions} (redirect or forward a foreign session).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.objrdma.s3.rdma;
