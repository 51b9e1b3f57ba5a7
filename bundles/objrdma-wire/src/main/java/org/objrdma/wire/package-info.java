/**
 * Wire forms of S3-over-RDMA, shared by clients and servers: the 81-hex cuObject descriptor
 * ({@link org.objrdma.wire.CuObjDescriptor}) with its {@code x-amz-rdma-token} header forms, the 88-hex
 * hipobj-rc-v2 token ({@link org.objrdma.wire.RcToken}) and its header, the agent key of the TCP cuObject flow
 * ({@link org.objrdma.wire.AgentKeys}), the Linux errno values both sides return ({@link org.objrdma.wire.Errno})
 * and the address policy a server applies to the endpoints clients name ({@link org.objrdma.wire.AddressPolicy}).
 *
 * <p>Every parser returns a {@link org.objrdma.wire.TokenResult}: a value, or a named
 * {@link org.objrdma.wire.TokenError} with a detail sentence. No parser throws on bad input.
 *
 * <p>1.3.0 (issue 29): what servers and clients had each written again: the header names of both protocols
 * ({@link org.objrdma.wire.RdmaHeaders}), the S3 users' {@code ACCESSKEY:SECRET} rules
 * ({@link org.objrdma.wire.UserCredentials}, which throws {@code IllegalArgumentException}: it reads
 * configuration, not requests) and the streams over native memory of the HTTP paths
 * ({@link org.objrdma.wire.SegmentStreams}). Minor: classes added, nothing changed.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package org.objrdma.wire;
