package org.objrdma.session.internal;

/**
 * {@link VerbsEndToEndTest} with the software device in deferred-completion mode: a worker thread executes
 * every send request some time after {@code post_send} returned, as a NIC does, so neither side may take
 * data as placed, or a completion as ready, before it has polled it. The delay widens that window; it is
 * asserted nowhere.
 */
class VerbsEndToEndDeferredTest extends VerbsEndToEndTest {
    private static final int DELAY_US = 200;

    @Override
    void configureDevice() {
        SoftVerbsDevice.setDeferred(true);
        SoftVerbsDevice.setDelayMicros(DELAY_US);
    }

    @Override
    void restoreDevice() {
        // the mode is process-wide: later test classes expect the default; turning it off drains the queue
        SoftVerbsDevice.setDelayMicros(0);
        SoftVerbsDevice.setDeferred(false);
    }
}
