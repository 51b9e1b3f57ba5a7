/**
 * Transport SPI: one-sided RDMA semantics (memory regions, channels, work requests, completions named after {@code ibv_wc_status}) that the verbs and the TCP transports both implement.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.objrdma.api.transport;
