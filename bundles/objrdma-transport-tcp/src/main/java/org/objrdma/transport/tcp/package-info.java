/**
 * Starting the TCP transport outside OSGi: plain-Java clients (the objrdma client, tools, tests) create
 * one with {@link org.objrdma.transport.tcp.TcpTransports}. Inside Karaf, use the {@code Transport} service.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.transport.tcp;
