package org.objrdma.verbs.internal;

import java.util.Dictionary;
import org.objrdma.api.transport.Transport;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.transport.AsyncEventReader;
import org.objrdma.verbs.internal.transport.VerbsTransport;
import org.objrdma.transport.common.Closer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one device port's {@link Transport} service in step with the port, as its asynchronous events
 * report it: withdrawn (and the transport marked unavailable with the reason) on {@code PORT_ERR} or
 * {@code DEVICE_FATAL}, published again on {@code PORT_ACTIVE} unless the device went fatal, which only a
 * new activation (opening the device again) can undo. Withdrawing the service is what makes consumers end
 * the work they had on it and move to the next transport. The {@link VerbsDevice} service's port state
 * follows too.
 */
final class TransportPublication implements AsyncEventReader.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(TransportPublication.class);

    private final BundleContext context;
    private final VerbsTransport transport;
    private final Dictionary<String, Object> transportProperties;
    private final DeviceService device;
    private ServiceRegistration<Transport> transportRegistration; // guarded by this
    private ServiceRegistration<VerbsDevice> deviceRegistration;  // guarded by this
    private boolean fatal;   // guarded by this
    private boolean closed;  // guarded by this

    TransportPublication(BundleContext context, VerbsTransport transport, Dictionary<String, Object> transportProperties,
                         DeviceService device) {
        this.context = context;
        this.transport = transport;
        this.transportProperties = transportProperties;
        this.device = device;
    }

    /** Publishes the device, and the transport if the port is ACTIVE now; then follows the port's events. */
    synchronized void publish() {
        if (device.portState() == PortState.ACTIVE) {
            transportRegistration = context.registerService(Transport.class, transport, transportProperties);
        } else {
            transport.markUnavailable(device.name() + " port " + device.port() + " is " + device.portState());
            LOG.info("verbs: {} port {} is {}: its transport is published when the port becomes ACTIVE", device.name(),
                    device.port(), device.portState());
        }
        deviceRegistration = context.registerService(VerbsDevice.class, device, device.properties());
        transport.watchAsyncEvents(this);
    }

    @Override
    public synchronized void portDown(String cause) {
        withdraw(cause, PortState.DOWN);
    }

    @Override
    public synchronized void portActive() {
        if (closed || fatal) {
            return;
        }
        transport.markAvailable();
        updateDevice(PortState.ACTIVE);
        if (transportRegistration == null) {
            transportRegistration = context.registerService(Transport.class, transport, transportProperties);
            LOG.info("verbs: {} port {} is ACTIVE again: transport {} published", device.name(), device.port(),
                    transport.name());
        }
    }

    @Override
    public synchronized void deviceFatal(String cause) {
        fatal = true;
        withdraw(cause + "; re-activate the component (or restart) once the device is back", device.portState());
    }

    private void withdraw(String cause, PortState state) {
        if (closed) {
            return;
        }
        transport.markUnavailable(cause);
        updateDevice(state);
        if (transportRegistration != null) {
            transportRegistration.unregister();
            transportRegistration = null;
            LOG.warn("verbs: transport {} withdrawn: {}", transport.name(), cause);
        }
    }

    private void updateDevice(PortState state) {
        device.portStateChanged(state);
        if (deviceRegistration != null) {
            deviceRegistration.setProperties(device.properties());
        }
    }

    /**
     * Takes both services back, the device's even when the transport's unregistration throws (the failure is
     * thrown afterwards); events after this change nothing. Idempotent.
     */
    synchronized void close() {
        closed = true;
        ServiceRegistration<?> transportServices = transportRegistration;
        ServiceRegistration<?> deviceService = deviceRegistration;
        transportRegistration = null;
        deviceRegistration = null;
        Closer.closeAll(() -> unregister(transportServices), () -> unregister(deviceService));
    }

    /** Takes a service back; null, or one the framework took back already (a stopping bundle), is nothing. */
    static void unregister(ServiceRegistration<?> r) {
        if (r == null) {
            return;
        }
        try {
            r.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters everything of a stopping bundle
        }
    }
}
