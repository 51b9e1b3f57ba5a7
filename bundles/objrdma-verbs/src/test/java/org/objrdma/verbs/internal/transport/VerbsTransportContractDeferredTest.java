package org.objrdma.verbs.internal.transport;

import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The contract again with the software device in deferred-completion mode: a worker thread executes every
 * send request after {@code post_send} returned, as a NIC does, so a completion can no longer be assumed
 * ready when the post returns and ordering mistakes in the transport show.
 */
class VerbsTransportContractDeferredTest extends VerbsTransportContractTest {

    @Override
    protected TransportPair openTransports() {
        TransportPair pair = super.openTransports();
        SoftVerbs.setDeferred(true);
        return new TransportPair(pair.requester(), pair.responder(), () -> {
            SoftVerbs.setDeferred(false);
            pair.cleanup().close();
        });
    }
}
