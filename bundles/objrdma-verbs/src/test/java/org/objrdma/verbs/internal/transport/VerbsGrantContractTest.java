package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.objrdma.transport.tck.GrantContractTest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * The grant rules of the shared suite on the verbs transport over the software device, whose grants are type-2
 * memory windows bound to the channel's queue pair: two transports on two device contexts, as in
 * {@link VerbsTransportContractTest}.
 */
class VerbsGrantContractTest extends GrantContractTest {

    @Override
    protected TransportPair openTransports() {
        ComponentFixture a = ComponentFixture.software();
        ComponentFixture b = ComponentFixture.software();
        VerbsTransport responder = (VerbsTransport) b.transport();
        assertTrue(responder.grantsByMemoryWindows(), "the software device binds memory windows");
        assertEquals(VerbsDevice.GRANTS_MEMORY_WINDOWS, b.devices().get(0).properties.get(VerbsDevice.PROPERTY_GRANTS));
        return new TransportPair(a.transport(), responder, () -> {
            a.close();
            b.close();
        });
    }
}
