/**
 * Transport SPI: one-sided RDMA semantics (memory regions, channels, work requests, completions named after {@code ibv_wc_status}) that the verbs and the TCP transports both implement.
 *
 * <p>2.0.0 (major): {@code EndpointInfo} is an open set of endpoint kinds ({@code level()} removed), transports
 * publish their flows and endpoint kind; {@link org.objrdma.api.transport.MemoryGrant} and {@code Channel.grant}
 * added and {@code MemoryRegion.asRemote()} removed (grants replace a region's own remote key; the staging pool,
 * the session manager, the cuObject facade and the client register local-only and hand out grants).
 *
 * <p>2.1.0: {@code Transport.channels()} and {@link org.objrdma.api.transport.ChannelInfo}, the open channels as
 * values for the shell and JMX.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.2.0")
package org.objrdma.api.transport;
