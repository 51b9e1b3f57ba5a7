package org.objrdma.shell.internal;

import java.util.Map;

/**
 * {@code org.objrdma:type=transports,name=registry}: the Transport services, which consumer bound which, and
 * pins (admin by the default ACL).
 */
public interface TransportsMXBean {
    /** Transport name → "level kind flows ranking available service-id" (tab separated). */
    Map<String, String> getTransports();

    /** "component.reference" of every unary Transport reference → "name#service-id" bound, or "-". */
    Map<String, String> getBindings();

    /** As {@code rdma:transports pin}: returns the line the shell prints. */
    String pin(String consumer, String transport) throws Exception;

    /** As {@code rdma:transports unpin}. */
    String unpin(String consumer) throws Exception;
}
