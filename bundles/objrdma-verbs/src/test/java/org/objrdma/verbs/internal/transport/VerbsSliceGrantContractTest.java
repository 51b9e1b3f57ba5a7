package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.objrdma.transport.tck.GrantContractTest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The grant rules on a device without type-2B memory windows (the software device with windows switched off):
 * grants fall back to one registration per slice, say so in the {@code VerbsDevice} properties, and keep every
 * rule but the binding to one channel.
 */
class VerbsSliceGrantContractTest extends GrantContractTest {

    @Override
    protected TransportPair openTransports() {
        boolean before = SoftVerbs.setMemoryWindows(false);
        ComponentFixture a = ComponentFixture.software();
        ComponentFixture b = ComponentFixture.software();
        VerbsTransport responder = (VerbsTransport) b.transport();
        assertFalse(responder.grantsByMemoryWindows());
        assertEquals(VerbsDevice.GRANTS_SLICE_REGISTRATION,
                b.devices().get(0).properties.get(VerbsDevice.PROPERTY_GRANTS));
        return new TransportPair(a.transport(), responder, () -> {
            a.close();
            b.close();
            SoftVerbs.setMemoryWindows(before);
        });
    }

    @Override
    protected boolean bindsGrantsToOneChannel() {
        return false;
    }
}
