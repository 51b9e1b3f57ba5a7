package org.objrdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.transport.VerbsTransport;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The verbs transport follows its port through the device's asynchronous events, injected on the software
 * device: PORT_ERR withdraws the Transport service and marks the transport unavailable with the reason,
 * PORT_ACTIVE publishes it again, DEVICE_FATAL withdraws it for good (until the component re-activates).
 * Every event read is acknowledged.
 */
class AsyncEventsTest {

    @AfterEach
    void portBackUp() {
        SoftVerbs.resetPort();
    }

    @Test
    void theTransportIsWithdrawnWhileItsPortIsDownAndAfterAFatalDevice() throws Exception {
        long ackedBefore = SoftVerbs.asyncEventsAcked();
        VerbsTransport transport;
        try (ComponentFixture f = ComponentFixture.software()) {
            transport = (VerbsTransport) f.transport();
            assertTrue(transport.isWatchingAsyncEvents());
            transport.openChannel(ChannelOptions.DEFAULT).close();

            assertTrue(SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_PORT_ERR, 1) >= 1);
            await("the transport withdrawn", () -> f.transports().isEmpty());
            assertFalse(transport.isAvailable());
            assertTrue(transport.unavailabilityCause().orElseThrow().contains("IBV_EVENT_PORT_ERR"),
                    transport.unavailabilityCause().orElseThrow());
            TransportException refused = assertThrows(TransportException.class,
                    () -> transport.openChannel(ChannelOptions.DEFAULT));
            assertEquals(TransportError.UNAVAILABLE, refused.error());
            assertEquals("DOWN", f.devices().getFirst().properties.get(VerbsDevice.PROPERTY_PORT_STATE));
            assertEquals(PortState.DOWN, ((VerbsDevice) f.devices().getFirst().service).portState());

            SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_PORT_ACTIVE, 1);
            await("the transport published again", () -> f.transports().size() == 1);
            assertSame(transport, f.transport(), "the same transport, back");
            assertTrue(transport.isAvailable());
            assertEquals("ACTIVE", f.devices().getFirst().properties.get(VerbsDevice.PROPERTY_PORT_STATE));
            transport.openChannel(ChannelOptions.DEFAULT).close();

            SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_DEVICE_FATAL, 0);
            await("the transport withdrawn after the fatal event", () -> f.transports().isEmpty());
            assertTrue(transport.unavailabilityCause().orElseThrow().contains("IBV_EVENT_DEVICE_FATAL"));
            SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_PORT_ACTIVE, 1);
            await("every event read and acknowledged", () -> SoftVerbs.asyncEventsAcked() - ackedBefore >= 4);
            Thread.sleep(100);
            assertTrue(f.transports().isEmpty(), "a fatal device stays withdrawn: only a re-activation reopens it");
            assertFalse(transport.isAvailable());
            assertEquals(1, f.devices().size(), "the device itself stays published, with its port state");
        }
        assertFalse(transport.isWatchingAsyncEvents(), "the reader stopped before the context closed");
        assertEquals(4, SoftVerbs.asyncEventsAcked() - ackedBefore);
    }

    @Test
    void aPortThatIsDownAtActivationPublishesItsTransportWhenItBecomesActive() throws Exception {
        SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_PORT_ERR, 1); // no context open: only the port moves
        try (ComponentFixture f = ComponentFixture.software()) {
            assertTrue(f.transports().isEmpty(), "no transport on a DOWN port");
            assertEquals("DOWN", f.devices().getFirst().properties.get(VerbsDevice.PROPERTY_PORT_STATE));
            SoftVerbs.injectAsyncEvent(SoftVerbs.IBV_EVENT_PORT_ACTIVE, 1);
            await("the transport published", () -> f.transports().size() == 1);
            assertTrue(f.transport().isAvailable());
            f.transport().openChannel(ChannelOptions.DEFAULT).close();
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }
}
