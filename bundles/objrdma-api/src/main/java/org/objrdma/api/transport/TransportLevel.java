package org.objrdma.api.transport;

/** How a transport moves bytes; consumers may prefer one level over another. */
public enum TransportLevel {
    /** Reliable-connected queue pairs on an RDMA NIC, driven through libibverbs. */
    VERBS_RC,
    /** The same one-sided semantics carried over TCP sockets by a software memory agent. */
    TCP
}
