/**
 * Code the transports and the components share, so that one rule is written once: {@link
 * org.objrdma.transport.common.Closer} closes several resources in one line and loses no failure, {@link
 * org.objrdma.transport.common.TransportChecks} holds the argument checks of {@code post}, {@code submit} and
 * {@code grant} that every transport applies (one message per rule), and {@link
 * org.objrdma.transport.common.BatchSlots} collects the completions of one {@code submit}.
 *
 * <p>A plain library: no services, no configuration, no OSGi at run time.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.objrdma.transport.common;
