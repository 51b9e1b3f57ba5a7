package org.objrdma.cuobj;

import org.objrdma.api.transport.Transport;

/**
 * Which flow carries a transfer over the bound transport: the one decision point between "dial the client's memory
 * agent" and "decline". Today only {@link #AGENT_ONE_SIDED} (the TCP transport) is driven; a transport without it
 * (verbs, which would need DC) is {@link #UNSUPPORTED} and the transfer answers {@code -EAFNOSUPPORT}. A new flow is
 * a new constant here, chosen in {@link #of}, and its own branch in {@link TransferPath#transfer}.
 */
enum TransferFlow {
    /** Server-initiated one-sided operations to a client memory agent ({@link Transport#FLOW_AGENT_ONE_SIDED}). */
    AGENT_ONE_SIDED,
    /** No flow of this facade: {@code -EAFNOSUPPORT}. */
    UNSUPPORTED;

    /** The flow of transport {@code t}. */
    static TransferFlow of(Transport t) {
        return t.flows().contains(Transport.FLOW_AGENT_ONE_SIDED) ? AGENT_ONE_SIDED : UNSUPPORTED;
    }

    /** Why {@code t} has no flow, for the {@code -EAFNOSUPPORT} telemetry line. */
    static String declineReason(Transport t) {
        return "the active transport " + t.name() + " serves " + t.flows() + ", not "
                + Transport.FLOW_AGENT_ONE_SIDED + " (DC over verbs is not driven yet)";
    }
}
