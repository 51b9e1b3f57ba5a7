/**
 * Transport SPI: one-sided RDMA semantics (memory regions, channels, work requests, completions named after {@code ibv_wc_status}) that the verbs and the TCP transports both implement.
 *
 * <p>1.2.0 (minor): adds {@link org.objrdma.api.transport.MemoryGrant} and {@code Channel.grant}, and deprecates
 * {@code MemoryRegion.asRemote()}; nothing is removed or changed incompatibly, so consumers of 1.1 keep working
 * and providers must implement the new type.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.objrdma.api.transport;
