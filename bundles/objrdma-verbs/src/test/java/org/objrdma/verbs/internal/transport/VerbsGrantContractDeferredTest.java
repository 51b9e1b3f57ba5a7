package org.objrdma.verbs.internal.transport;

import org.objrdma.transport.tck.TransportContractTest.TransportPair;
import org.objrdma.verbs.testsupport.SoftVerbs;

/** The grant rules again with deferred completions: binds and invalidates complete after post returns, as on a NIC. */
class VerbsGrantContractDeferredTest extends VerbsGrantContractTest {

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
