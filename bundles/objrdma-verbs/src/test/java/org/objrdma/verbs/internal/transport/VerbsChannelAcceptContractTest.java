package org.objrdma.verbs.internal.transport;

import org.objrdma.transport.tck.ChannelAcceptContractTest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * The access-key and inbound-accept contract on the verbs transport (software device, two device contexts): the
 * refusing half — no access key, no accepting in INIT.
 */
class VerbsChannelAcceptContractTest extends ChannelAcceptContractTest {

    @Override
    protected TransportPair openTransports() {
        ComponentFixture a = ComponentFixture.software();
        ComponentFixture b = ComponentFixture.software();
        return new TransportPair(a.transport(), b.transport(), () -> {
            a.close();
            b.close();
        });
    }
}
