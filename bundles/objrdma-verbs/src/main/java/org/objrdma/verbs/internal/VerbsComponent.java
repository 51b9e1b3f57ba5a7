package org.objrdma.verbs.internal;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.transport.common.Closer;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.VerbsRuntime;
import org.objrdma.verbs.internal.ffi.DeviceAttributes;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.PortAttributes;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.internal.transport.DeviceInfo;
import org.objrdma.verbs.internal.transport.GidTable;
import org.objrdma.verbs.internal.transport.VerbsTransport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the RDMA devices at activation and publishes, per device port the configuration selects, a
 * {@link VerbsDevice} and — while the port is ACTIVE — its verbs RC {@link Transport}: the device's
 * asynchronous events withdraw the transport when the port goes down or the device turns fatal, and
 * publish it again when the port is ACTIVE again ({@link TransportPublication}). Always publishes one
 * {@link VerbsRuntime} saying what was found and, if nothing was published, why.
 *
 * <p>No libibverbs, no devices, or a device that fails to open are normal outcomes, not failures: the
 * component stays active, logs the reason once, and publishes nothing else. Invalid configuration and
 * struct layouts that disagree with the reference are failures: activation throws, with a message saying
 * which.
 *
 * <p>Owns, in this order of release: the service registrations, the transports (each owns its device
 * context), the library.
 *
 * <p>A configuration change ({@code @Modified}) is checked whole first: a bad value is refused with one ERROR
 * line naming the property, and what is published stays as it is. The same settings change nothing. Any
 * other valid change restarts the component, since the library, the devices opened and the pollers are fixed
 * at activation: one INFO line names the changed settings, everything is released in the order above, and
 * discovery runs again with the new settings. Should that fail, it runs again with the previous ones and one
 * ERROR line says why.
 */
@Component(name = VerbsComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL, immediate = true,
        service = {})
@Designate(ocd = VerbsConfig.class)
public final class VerbsComponent {
    /** Component name and configuration PID. */
    public static final String PID = "org.objrdma.verbs";
    /** Service ranking of the verbs transports: above the TCP transport's, so greedy consumers prefer them. */
    public static final int TRANSPORT_RANKING = 100;

    private static final Logger LOG = LoggerFactory.getLogger(VerbsComponent.class);

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Telemetry telemetry;

    private VerbsLibrary library;
    private final List<VerbsTransport> transports = new ArrayList<>();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();
    /** One per device port: its Transport and VerbsDevice services, following the port's events. */
    private final List<TransportPublication> publications = new ArrayList<>();

    /** The settings of the last activation or restart that succeeded. */
    private VerbsSettings running;
    private VerbsConfig runningConfig;

    @Modified
    synchronized void modified(BundleContext context, VerbsConfig config) {
        VerbsSettings next;
        try {
            next = VerbsSettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("Configuration of {} refused, the verbs runtime keeps its previous settings: {}", PID,
                    e.getMessage());
            return;
        }
        if (next.equals(running)) {
            return;
        }
        LOG.info("{}: settings changed ({} -> {}), restarting the verbs runtime", PID, running, next);
        VerbsConfig previous = runningConfig;
        try {
            deactivate();
        } catch (RuntimeException e) {
            // everything was released all the same (Closer): start again, saying what failed on the way
            LOG.error("{}: releasing the verbs runtime failed; starting it again anyway", PID, e);
        }
        try {
            activate(context, config);
        } catch (RuntimeException e) {
            LOG.error("{}: the verbs runtime did not start with the new settings ({}), starting it again with the "
                    + "previous ones", PID, e.getMessage());
            activate(context, previous);
        }
    }

    @Activate
    synchronized void activate(BundleContext context, VerbsConfig config) {
        VerbsSettings settings = VerbsSettings.from(config);
        List<String> layoutProblems = IbvLayouts.mismatchesAgainstReference();
        if (!layoutProblems.isEmpty()) {
            throw new IllegalStateException("refusing to start: the libibverbs struct layouts of this bundle do not"
                    + " match " + IbvLayouts.REFERENCE_RESOURCE + ": " + String.join("; ", layoutProblems));
        }
        RuntimeStatus status;
        try {
            status = discover(context, settings);
            Dictionary<String, Object> runtimeProperties = status.properties();
            if (status.isAvailable()) {
                // issue 27: whether cuObject's DC can be driven here, probed once and kept with the reason
                Optional<String> dc = DcAvailability.probe(settings.library());
                DcAvailability.publishInto(runtimeProperties, dc);
                LOG.info("verbs: DC {}", dc.map(c -> "unavailable: " + c).orElse("entry points usable (libmlx5 "
                        + Mlx5DvLibrary.locate(settings.library()) + ")"));
            }
            registrations.add(context.registerService(VerbsRuntime.class, status, runtimeProperties));
        } catch (RuntimeException e) {
            // release whatever discovery had opened before DS reports the failure
            try {
                deactivate();
            } catch (RuntimeException releasing) {
                e.addSuppressed(releasing);
            }
            throw e;
        }
        running = settings;
        runningConfig = config;
        if (status.isAvailable()) {
            LOG.info("verbs: {} published from {}{}", status.devices(), settings.library(),
                    status.skippedDevices().isEmpty() ? "" : "; left out: " + status.skippedDevices());
        } else {
            LOG.info("verbs: nothing published: {}", status.unavailabilityCause().orElseThrow());
        }
    }

    private RuntimeStatus discover(BundleContext context, VerbsSettings settings) {
        library = VerbsLibrary.load(settings.library());
        if (!library.isAvailable()) {
            return new RuntimeStatus(settings.library(), library.unavailabilityCause().orElseThrow(), List.of(), List.of());
        }
        if (library.isSoftware()) {
            LOG.info("verbs: {} is the software test device, not a NIC driver", settings.library());
        }
        List<String> published = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        boolean configuredSeen = false;
        List<String> listed = new ArrayList<>();
        try (VerbsLibrary.DeviceList list = library.listDevices()) {
            if (list.devices().isEmpty()) {
                return new RuntimeStatus(settings.library(), list.emptinessCause().orElseThrow(), List.of(), List.of());
            }
            for (VerbsLibrary.DeviceEntry entry : list.devices()) {
                listed.add(entry.name());
                if (!settings.deviceName().isEmpty() && !settings.deviceName().equals(entry.name())) {
                    continue;
                }
                configuredSeen = true;
                try {
                    publish(context, settings, entry);
                    published.add(entry.name());
                } catch (SkipDevice | VerbsException | RuntimeException e) {
                    skipped.add(entry.name() + ": " + e.getMessage());
                    LOG.warn("verbs: device {} not published: {}", entry.name(), e.getMessage());
                }
            }
        }
        String cause = null;
        if (!configuredSeen) {
            cause = "device.name " + settings.deviceName() + " not found; libibverbs lists " + listed;
        } else if (published.isEmpty()) {
            cause = "no device could be published: " + skipped;
        }
        return new RuntimeStatus(settings.library(), cause, published, skipped);
    }

    /** A device left out for a reason that is not an error of the verbs library. */
    private static final class SkipDevice extends Exception {
        private static final long serialVersionUID = 1L;

        SkipDevice(String message) {
            super(message);
        }
    }

    private void publish(BundleContext context, VerbsSettings settings, VerbsLibrary.DeviceEntry entry)
            throws VerbsException, SkipDevice {
        MemorySegment ctx = library.openDevice(entry);
        boolean ctxOwnedByTransport = false;
        try {
            DeviceAttributes device = library.queryDevice(ctx);
            int port = settings.port();
            if (port > device.physPortCount()) {
                throw new SkipDevice("port " + port + " does not exist (the device has " + device.physPortCount() + ")");
            }
            PortAttributes portAttr = library.queryPort(ctx, port);
            GidTable table = GidTable.read(library, ctx, port, portAttr.gidTableLength());
            List<VerbsDevice.IndexedGid> gids = table.gids();
            LinkLayer linkLayer = LinkLayer.fromCode(portAttr.linkLayer());
            int gidIndex = chooseGid(settings, gids, linkLayer, portAttr.gidTableLength());
            DeviceInfo info = DeviceInfo.withGidTable(entry.name(), entry.nodeGuid(), port, device, portAttr, table,
                    gidIndex, library.isSoftware());
            DeviceService service = new DeviceService(info);
            // the transport exists whatever the port state: its context's events say when it may be published
            VerbsTransport transport = VerbsTransport.open(library, ctx, info, settings.poller(), () -> telemetry);
            ctxOwnedByTransport = true;
            transports.add(transport);
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(Transport.PROPERTY_NAME, transport.name());
            props.put(Transport.PROPERTY_LEVEL, TransportLevel.VERBS_RC.name());
            props.put(Transport.PROPERTY_ENDPOINT_KIND, EndpointInfo.Verbs.KIND);
            props.put(Transport.PROPERTY_FLOWS, transport.flows().toArray(String[]::new));
            props.put(Constants.SERVICE_RANKING, TRANSPORT_RANKING);
            props.put(VerbsDevice.PROPERTY_DEVICE_NAME, entry.name());
            props.put(VerbsDevice.PROPERTY_SOFTWARE, library.isSoftware());
            TransportPublication publication = new TransportPublication(context, transport, props, service);
            publications.add(publication);
            publication.publish();
            LOG.debug("verbs: published {}", service);
        } finally {
            if (!ctxOwnedByTransport) {
                library.closeDevice(ctx);
            }
        }
    }

    private static int chooseGid(VerbsSettings settings, List<VerbsDevice.IndexedGid> gids, LinkLayer linkLayer,
                                 int tableLength) throws SkipDevice {
        if (settings.gidIndex() >= 0) {
            for (VerbsDevice.IndexedGid g : gids) {
                if (g.index() == settings.gidIndex()) {
                    return g.index();
                }
            }
            throw new SkipDevice("gid.index " + settings.gidIndex() + " is empty or beyond the GID table (length "
                    + tableLength + ")");
        }
        for (VerbsDevice.IndexedGid g : gids) {
            if (g.gid().toHex().startsWith(settings.gidPrefix())) {
                return g.index();
            }
        }
        if (!settings.gidPrefix().isEmpty()) {
            throw new SkipDevice("no GID starts with gid.prefix " + settings.gidPrefix() + "; the port has "
                    + gids.stream().map(g -> g.index() + "=" + g.gid().toHex()).toList());
        }
        if (linkLayer == LinkLayer.ETHERNET) {
            throw new SkipDevice("the RoCE port has no GID; RoCE addresses peers by GID only");
        }
        // InfiniBand without a GID: peers are reached by LID alone
        return 0;
    }

    /**
     * Releases everything, in the order of the class comment, and every one of them even when one throws: a
     * close that fails does not leave the transports' pollers running or the library loaded. What failed is
     * thrown afterwards (first failure, later ones suppressed), which SCR logs.
     */
    @Deactivate
    synchronized void deactivate() {
        // consumers first let go of the services, then the devices close, then the library goes
        List<TransportPublication> published = List.copyOf(publications);
        List<AutoCloseable> unregistrations = registrations.stream()
                .<AutoCloseable>map(r -> () -> TransportPublication.unregister(r)).toList();
        List<VerbsTransport> opened = List.copyOf(transports);
        VerbsLibrary loaded = library;
        publications.clear();
        registrations.clear();
        transports.clear();
        library = null;
        Closer.closeAll(Closer.reversed(published.stream().<AutoCloseable>map(p -> p::close).toList()),
                Closer.reversed(unregistrations), Closer.all(opened), loaded);
        LOG.debug("verbs: deactivated");
    }
}
