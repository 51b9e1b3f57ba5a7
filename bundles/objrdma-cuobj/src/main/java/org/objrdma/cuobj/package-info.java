/**
 * A cuObjServer-compatible facade in Java: {@link org.objrdma.cuobj.CuObjServer} with the names, defaults,
 * limits, validation order and negative-errno returns of NVIDIA's C++ API, moving bytes through the objrdma
 * Transport SPI (server WRITE for GET, server READ for PUT). Errno values are
 * {@link org.objrdma.wire.Errno}'s; the descriptor codec is {@link org.objrdma.wire.CuObjDescriptor}.
 * {@link org.objrdma.cuobj.CuObjService} is the service interface the gateway binds.
 *
 * <p>2.0: {@code CuObjServer.setDefaultTransport} / {@code setDefaultAgentKey} (static mutable defaults) are gone:
 * inside the container the C-style constructors take both from the active component; {@code CuObjService} added.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.objrdma.cuobj;
