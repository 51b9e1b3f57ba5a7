/**
 * The Java client of S3-over-RDMA: {@link org.objrdma.client.ClientMemory} registers memory with a transport,
 * {@link org.objrdma.client.CuObjAgent} runs the memory agent channel of the cuObject flow and produces
 * descriptors ({@code cuMemObjGetRDMAToken}) with GET / PUT helpers, {@link org.objrdma.client.RcClient} does the
 * client's steps of hipobj-rc-v2 (tokens, PREPARE / READY values, the data phase). The HTTP layer that carries
 * descriptors and tokens is the caller's.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.objrdma.client;
