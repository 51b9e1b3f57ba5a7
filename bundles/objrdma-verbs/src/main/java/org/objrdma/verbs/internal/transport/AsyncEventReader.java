package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the asynchronous events of one device context ({@code ibv_get_async_event}, each acknowledged at
 * once) on its own daemon thread and tells a {@link Listener} about the ones that change whether the
 * transport can work: its port going down or coming back, the device turning fatal. Other events are
 * logged at DEBUG. The thread waits on {@code async_fd} with {@code poll} and a short timeout, so
 * {@link #stop()} ends it within that timeout, before the context is closed.
 */
public final class AsyncEventReader {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventReader.class);
    /** Longest {@link #stop()} waits for the thread to notice: one poll timeout. */
    static final int POLL_TIMEOUT_MS = 100;

    /** What a port or the device did; called on the reader thread, one event at a time. */
    public interface Listener {
        /** {@code IBV_EVENT_PORT_ERR} on the transport's port. */
        void portDown(String cause);

        /** {@code IBV_EVENT_PORT_ACTIVE} on the transport's port. */
        void portActive();

        /** {@code IBV_EVENT_DEVICE_FATAL}: the context is unusable until the device is opened again. */
        void deviceFatal(String cause);
    }

    private final VerbsLibrary library;
    private final MemorySegment context;
    private final String deviceName;
    private final int port;
    private final Listener listener;
    private final Thread thread;
    private volatile boolean running = true;

    AsyncEventReader(VerbsLibrary library, MemorySegment context, String deviceName, int port, Listener listener) {
        this.library = library;
        this.context = context;
        this.deviceName = deviceName;
        this.port = port;
        this.listener = listener;
        this.thread = Thread.ofPlatform().daemon().name("objrdma-verbs-events-" + deviceName).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Ends the thread and waits for it; idempotent. After this the context is no longer read. */
    void stop() {
        running = false;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10L * POLL_TIMEOUT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.warn("verbs: the event reader of {} did not stop within {} ms", deviceName, 10 * POLL_TIMEOUT_MS);
            }
        }
    }

    boolean isRunning() {
        return thread.isAlive();
    }

    private void run() {
        while (running) {
            VerbsLibrary.AsyncEvent event;
            try {
                event = library.awaitAsyncEvent(context, POLL_TIMEOUT_MS);
            } catch (VerbsException | RuntimeException e) {
                LOG.error("verbs: reading the asynchronous events of {} failed; no longer watching its port", deviceName, e);
                return;
            }
            if (event != null && running) {
                dispatch(event);
            }
        }
    }

    private void dispatch(VerbsLibrary.AsyncEvent event) {
        try {
            switch (event.type()) {
                case IbvConstants.IBV_EVENT_PORT_ERR -> {
                    if (event.portNum() == port) {
                        listener.portDown(deviceName + " port " + port + " went down (IBV_EVENT_PORT_ERR)");
                    }
                }
                case IbvConstants.IBV_EVENT_PORT_ACTIVE -> {
                    if (event.portNum() == port) {
                        listener.portActive();
                    }
                }
                case IbvConstants.IBV_EVENT_DEVICE_FATAL ->
                        listener.deviceFatal(deviceName + " reported a fatal error (IBV_EVENT_DEVICE_FATAL)");
                default -> LOG.debug("verbs: {} asynchronous event {} (port/element {}) ignored", deviceName,
                        event.type(), event.portNum());
            }
        } catch (RuntimeException e) {
            LOG.warn("verbs: handling asynchronous event {} of {} failed", event.type(), deviceName, e);
        }
    }
}
