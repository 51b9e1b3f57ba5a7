package org.objrdma.cuobj;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.Closer;
import java.net.InetAddress;
import org.objrdma.wire.AddressPolicy;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;
import org.objrdma.wire.TokenResult;
import org.objrdma.cuobj.internal.Addresses;
import org.objrdma.cuobj.internal.AgentConnections;
import org.objrdma.cuobj.internal.AgentTarget;
import org.objrdma.cuobj.internal.FacadeChannels;
import org.objrdma.cuobj.internal.TelemetryLog;
import org.objrdma.cuobj.internal.TcpTunables;

/**
 * {@code cuObjServer} in Java: the server side of cuObject's S3-over-RDMA, with NVIDIA's method names,
 * defaults, limits, validation order and negative-errno returns, moving bytes through the objrdma Transport SPI.
 * A GET is a server WRITE into the client's memory, a PUT a server READ from it.
 *
 * <p><b>Transports.</b> Over the TCP transport the descriptor names the client's memory agent (mapping in
 * {@link CuObjDescriptor}); the server dials the agent channel once, presenting the agent key, and keeps the
 * connection for every later request naming that channel, whichever facade channel serves it. The flow needs a
 * transport that serves {@link Transport#FLOW_AGENT_ONE_SIDED} (the TCP transport); over any other (verbs, which
 * would need DC) every transfer returns {@code -EAFNOSUPPORT} ("address family not supported by the active
 * path") and {@link #isConnected()} is false. The DS component binds only a transport that serves the flow.
 * Before dialing, the agent address is judged by the server's {@link AddressPolicy} (loopback, link-local, broadcast,
 * the server host's own addresses and the {@link CuObjRDMATunable#setDenyAddresses deny list} refused unless
 * {@link CuObjRDMATunable#setAllowAddresses allowed}; {@code -EACCES}). A dial that fails answers {@code -EIO},
 * RETRY_EXC_ERR, only once {@link CuObjRDMATunable#setDialFailureDelayMs the failed dial delay} has passed since it
 * began, whatever the port did ({@link DialPacing}); a kept connection whose peer went away is evicted
 * ({@code AgentConnections}).
 *
 * <p><b>Construction.</b> The C-style constructors take the transport and the agent key from
 * {@link #setDefaultTransport} / {@link #setDefaultAgentKey} (the DS component {@code org.objrdma.cuobj} sets
 * both while it is active); {@link #builder()} takes them explicitly. Construction never throws for bad
 * settings: as in C, check {@link #isConnected()} (the reason is logged). Without any agent key (none in the
 * tunables, no default) the session still starts, in <b>per-principal mode</b>: the {@link CuObjPrincipal}
 * overloads work, the cuObjServer-compatible ones answer {@code -EINVAL}.
 *
 * <p><b>Returns</b> (transfers, in the order checked; {@code status} is written only in the fifth group and on
 * success):
 * <ol>
 *   <li>{@code -ENODEV}: no session (closed, or it never started) or the bound transport is missing or unavailable;
 *       then {@code -EINVAL}: a cuObjServer-compatible overload (no principal) on a server without a shared agent
 *       key (per-principal mode), or a principal overload with a null principal;</li>
 *   <li>{@code -EIO}: no buffer, a buffer ended or of another server, {@code remote_buf_start == 0},
 *       {@code size == 0}, {@code size > 1 GiB}; then the channel is not allocated; then the descriptor does not
 *       parse; then {@code [remote, remote+size)} is outside the descriptor's region; then
 *       {@code size + local_offset} exceeds the buffer (or {@code local_offset < 0}); then the buffer has more
 *       entries than {@code max_sge};</li>
 *   <li>{@code -EAFNOSUPPORT}: the transport does not serve {@link Transport#FLOW_AGENT_ONE_SIDED} (DC over verbs
 *       is not supported), or the descriptor cannot name a TCP agent (no GID, port 0);
 *       {@code -EACCES}: the address policy refuses the agent address;</li>
 *   <li>{@code -ENOMEM}: registering the buffer with a replaced transport failed, or the transport has no room
 *       for another connection or request (RESOURCE_EXHAUSTED);</li>
 *   <li>{@code -EIO} with {@code status}: the client agent could not be reached ({@code RETRY_EXC_ERR}) or
 *       refused the agent key ({@code REM_ACCESS_ERR}); the transfer failed (its completion status, e.g.
 *       {@code REM_ACCESS_ERR} for a bad rkey, {@code RESP_TIMEOUT_ERR} past the transfer timeout).</li>
 * </ol>
 * Success: the byte count (synchronous), or 0 for an accepted asynchronous request whose completion
 * {@link #poll} reports on the same channel.
 *
 * <p><b>Threads.</b> As documented for cuObject: one channel is used by one thread at a time; registration,
 * deregistration, views, channel allocation and telemetry setup are safe from any thread.
 *
 * <p><b>Ownership.</b> The server owns its registrations, its connections to client agents and the host
 * buffers {@link #allocHostBuffer} made; {@link #close()} ends them in that order: session (connections closed,
 * in-flight transfers flushed), views, registered buffers, host buffers. Idempotent.
 */
public class CuObjServer extends RDMAConnection implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CuObjServer.class);
    private static final long WAIT_GRACE_MS = 1_000;

    // ---------------------------------------------------------------- static defaults and telemetry setup

    private static volatile Supplier<Transport> defaultTransport;
    private static volatile byte[] defaultAgentKey;

    private static final Object TELEMETRY_LOCK = new Object();
    private static TelemetryLog.Setup telemetrySetup;              // guarded by TELEMETRY_LOCK; null = SLF4J
    private static int telemetryFlags = CuObj.CUOBJ_LOG_PATH_ERROR; // guarded by TELEMETRY_LOCK
    private static int telemetryOpFlags;                            // guarded by TELEMETRY_LOCK

    /**
     * The transport servers made with the C-style constructors use; read on every call, so the supplier may
     * follow a service swap. Null clears it (those servers then answer {@code -ENODEV}).
     */
    public static void setDefaultTransport(Supplier<Transport> transport) {
        defaultTransport = transport;
    }

    /** The agent key servers use when their tunables name none (copied; null clears; 16..64 bytes). */
    public static void setDefaultAgentKey(byte[] key) {
        if (key != null && (key.length < AgentKeys.MIN_LENGTH || key.length > AgentKeys.MAX_LENGTH)) {
            throw new IllegalArgumentException("an agent key is 16..64 bytes, was " + key.length);
        }
        defaultAgentKey = key == null ? null : key.clone();
    }

    /**
     * Sends telemetry of servers created from now on to {@code os} (a {@code PrintStream}, {@code Writer}, …).
     * OpenTelemetry is not built in, so {@code useOtel} falls back to the stream, as cuObject does without it.
     * A null {@code os} keeps the default (SLF4J logger {@code org.objrdma.cuobj.telemetry}).
     */
    public static void setupTelemetry(boolean useOtel, Appendable os) {
        synchronized (TELEMETRY_LOCK) {
            if (telemetrySetup != null) {
                telemetrySetup.shutDown();
            }
            telemetrySetup = os == null ? null : new TelemetryLog.Setup(os);
        }
        if (useOtel) {
            TelemetryLog.DEFAULT.info("cuobj telemetry: OpenTelemetry is not built in; using the stream");
        }
    }

    /** Back to the default output; servers alive stop writing to the stream, which may be closed afterwards. */
    public static void shutdownTelemetry() {
        synchronized (TELEMETRY_LOCK) {
            if (telemetrySetup != null) {
                telemetrySetup.shutDown();
            }
            telemetrySetup = null;
        }
    }

    /** {@code CUOBJ_LOG_PATH_*} bits for servers created from now on; 0 disables; other bits are ignored. */
    public static void setTelemFlags(int flags) {
        synchronized (TELEMETRY_LOCK) {
            telemetryFlags = flags & 0x7;
        }
    }

    /** The 2.x form: path flags and {@code CUOBJ_LOG_OP_*} flags (0 by default). */
    public static void setTelemFlags(int flags, int opFlags) {
        synchronized (TELEMETRY_LOCK) {
            telemetryFlags = flags & 0x7;
            telemetryOpFlags = opFlags & 0x3;
        }
    }

    private static TelemetryLog currentTelemetry(int[] flagsOverride) {
        synchronized (TELEMETRY_LOCK) {
            return flagsOverride == null ? new TelemetryLog(telemetrySetup, telemetryFlags, telemetryOpFlags)
                    : new TelemetryLog(telemetrySetup, flagsOverride[0], flagsOverride[1]);
        }
    }

    // ---------------------------------------------------------------- instance

    /** What a started session holds; replaced as a whole by start and close. */
    private record Session(byte[] agentKey, FacadeChannels channels, AgentConnections connections,
                           Duration transferTimeout, int maxSge, AddressPolicy addressPolicy, DialPacing dialPacing) {
    }

    private final Supplier<Transport> transport;
    private final Supplier<Telemetry> telemetry;
    private final TelemetryLog log;
    private final int proto;
    private final AtomicLong nextWrId = new AtomicLong();
    private final Set<RdmaBuffer> buffers = ConcurrentHashMap.newKeySet();
    private final Map<Long, Arena> hostBuffers = new ConcurrentHashMap<>();
    private volatile Session session;
    private volatile boolean closed;
    /** The transport the last transfer used: when it changes, connections on the old one are dropped. */
    private volatile Transport lastTransport;

    /** A server with default tunables on the default transport; check {@link #isConnected()}. */
    public CuObjServer(String ip, int port, int proto) {
        this(ip, port, proto, new CuObjRDMATunable());
    }

    /** A server with {@code params} (copied) on the default transport; check {@link #isConnected()}. */
    public CuObjServer(String ip, int port, int proto, CuObjRDMATunable params) {
        this(() -> {
            Supplier<Transport> s = defaultTransport;
            return s == null ? null : s.get();
        }, () -> Telemetry.NOOP, ip, port, proto, params, null);
    }

    /** A server on {@code transport}; check {@link #isConnected()}. */
    public CuObjServer(Transport transport, String ip, int port, int proto, CuObjRDMATunable params) {
        this(() -> transport, () -> Telemetry.NOOP, ip, port, proto, params, null);
    }

    private CuObjServer(Supplier<Transport> transport, Supplier<Telemetry> telemetry, String ip, int port, int proto,
                        CuObjRDMATunable params, int[] telemetryFlagsOverride) {
        super(ip, port, params);
        this.transport = transport;
        this.telemetry = telemetry;
        this.proto = proto;
        this.log = currentTelemetry(telemetryFlagsOverride);
        startRDMASession();
    }

    /** objrdma's way to build a server with an explicit transport supplier, telemetry and flags. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link CuObjServer}. */
    public static final class Builder {
        private Supplier<Transport> transport;
        private Supplier<Telemetry> telemetry = () -> Telemetry.NOOP;
        private String ip = "127.0.0.1";
        private int port;
        private int proto = CuObj.CUOBJ_PROTO_RDMA_DC_V1;
        private CuObjRDMATunable params = new CuObjRDMATunable();
        private int[] flags;

        private Builder() {
        }

        /** The transport, read on every call (a DS dynamic reference may swap it); null answers -ENODEV. */
        public Builder transport(Supplier<Transport> t) {
            transport = Objects.requireNonNull(t, "transport");
            return this;
        }

        public Builder transport(Transport t) {
            return transport(() -> t);
        }

        /** Where CUOBJ_* counters go (read on every count); {@link Telemetry#NOOP} by default. */
        public Builder telemetry(Supplier<Telemetry> t) {
            telemetry = Objects.requireNonNull(t, "telemetry");
            return this;
        }

        /** The server address (a literal IPv4 or IPv6 address without brackets) and port (0..65535). */
        public Builder address(String ip, int port) {
            this.ip = ip;
            this.port = port;
            return this;
        }

        public Builder proto(int p) {
            proto = p;
            return this;
        }

        /** The tunables, copied at {@link #build()}. */
        public Builder tunable(CuObjRDMATunable t) {
            params = Objects.requireNonNull(t, "tunable");
            return this;
        }

        /** Telemetry flags of this server instead of the static {@code setTelemFlags} ones. */
        public Builder telemetryFlags(int pathFlags, int opFlags) {
            flags = new int[] {pathFlags & 0x7, opFlags & 0x3};
            return this;
        }

        /** The server, its session started if the settings allow ({@link #isConnected()}). */
        public CuObjServer build() {
            Supplier<Transport> t = transport != null ? transport : () -> {
                Supplier<Transport> s = defaultTransport;
                return s == null ? null : s.get();
            };
            return new CuObjServer(t, telemetry, ip, port, proto, params, flags);
        }
    }

    /** The {@code proto} given at construction (not validated, as in C). */
    public int proto() {
        return proto;
    }

    /** The server address given at construction. */
    public String ip() {
        return ip;
    }

    /** The port given at construction. */
    public int port() {
        return port;
    }

    // ---------------------------------------------------------------- session

    @Override
    public final int startRDMASession() {
        synchronized (this) {
            if (closed) {
                return -1;
            }
            if (session != null) {
                return 0;
            }
            String problem = sessionProblem();
            if (problem != null) {
                LOG.error("cuObjServer {}:{}: session not started: {}", ip, port, problem);
                if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
                    log.line("ERROR", "session not started: " + problem);
                }
                return -1;
            }
            CuObjRDMATunable p;
            synchronized (params) {
                p = new CuObjRDMATunable(params);
            }
            byte[] key = agentKeyOf(p);
            if (key == null) {
                LOG.info("cuObjServer {}:{}: no shared agent key: per-principal mode, the cuObjServer-compatible"
                        + " transfer overloads answer -EINVAL (only the CuObjPrincipal overloads dial agents)", ip, port);
            }
            Duration timeout = Duration.ofMillis(p.getTransferTimeoutMs());
            DialPacing pacing = DialPacing.ofMillis(p.getDialFailureDelayMs()); // validated above
            // timeout and retry_cnt, applied to the dial, which no failure may outlast (its answer is padded to it)
            Duration connectTimeout = pacing.dialTimeout(TcpTunables.dialTimeout(p));
            ChannelOptions options = new ChannelOptions((int) p.getCqDepth(), 1, p.getMaxSge(), connectTimeout);
            session = new Session(key, new FacadeChannels(p.getNumDcis()),
                    new AgentConnections(p.getConnectionCacheSize(), options, telemetry), timeout, p.getMaxSge(),
                    AddressPolicy.parse(p.getAllowAddresses(), p.getDenyAddresses()).value(), pacing); // validated above
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "session started on " + ip + ":" + port + " proto " + proto + " " + p);
            }
            Transport t = transport.get();
            LOG.info("cuObjServer {}:{}: agent dial timeout {} (timeout {}, retry_cnt {}); tunables with no effect on"
                    + " transport {}: {}", ip, port, connectTimeout, p.getTimeout(), p.getRetryCount(),
                    t == null ? "none" : t.name(), String.join(", ", TcpTunables.ignored(p)));
            return 0;
        }
    }

    /** Why a session cannot start now, or null. */
    private String sessionProblem() {
        if (!Addresses.isLiteral(ip)) {
            return "'" + ip + "' is not a literal IPv4 or IPv6 address (IPv6 without brackets)";
        }
        if (port < 0 || port > 0xFFFF) {
            return "port " + port + " is not 0..65535";
        }
        List<String> bad;
        synchronized (params) {
            bad = params.validate();
        }
        return bad.isEmpty() ? null : String.join("; ", bad);
    }

    private static byte[] agentKeyOf(CuObjRDMATunable p) {
        byte[] key = p.getAgentKey();
        if (key != null) {
            return key;
        }
        if (p.isAgentKeyFromDcKey()) {
            return AgentKeys.fromDcKey(p.getDcKey());
        }
        byte[] d = defaultAgentKey;
        return d == null ? null : d.clone();
    }

    @Override
    public final void closeRDMASession() {
        Session s;
        synchronized (this) {
            s = session;
            session = null;
        }
        if (s != null) {
            s.connections().close();
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "session closed on " + ip + ":" + port);
            }
        }
    }

    /**
     * True while the session is started and the bound transport is available and serves
     * {@link Transport#FLOW_AGENT_ONE_SIDED}: only then can a transfer succeed (with a verbs transport it is false).
     */
    public boolean isConnected() {
        Transport t = transport.get();
        return session != null && t != null && t.isAvailable() && servesThisFlow(t);
    }

    /** True if {@code t} serves server-initiated one-sided operations to a client memory agent. */
    static boolean servesThisFlow(Transport t) {
        return t.flows().contains(Transport.FLOW_AGENT_ONE_SIDED);
    }

    /** The transport bound now, or null. */
    public Transport transport() {
        return transport.get();
    }

    // ---------------------------------------------------------------- memory

    /**
     * Page-aligned host memory of {@code size} bytes ({@value CuObj#HOST_BUFFER_ALIGNMENT}-byte alignment), from a
     * shared arena of its own; null for {@code size <= 0} or when the allocation fails. Release it with
     * {@link #freeHostBuffer} (the {@code free()} of C); {@link #close()} frees what is left.
     */
    public MemorySegment allocHostBuffer(long size) {
        if (size <= 0 || closed) {
            return null;
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment s = arena.allocate(size, CuObj.HOST_BUFFER_ALIGNMENT);
            hostBuffers.put(s.address(), arena);
            if (closed && hostBuffers.remove(s.address(), arena)) {
                arena.close(); // close() ran meanwhile and did not see this one
                return null;
            }
            return s;
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            return null;
        }
    }

    /**
     * Frees memory {@link #allocHostBuffer} returned; null or anything else is ignored; idempotent. Deregister it
     * first: using it afterwards throws {@link IllegalStateException} instead of touching freed memory.
     */
    public void freeHostBuffer(MemorySegment buffer) {
        if (buffer == null) {
            return;
        }
        Arena arena = hostBuffers.remove(buffer.address());
        if (arena != null) {
            arena.close();
        }
    }

    /**
     * Registers the first {@code size} bytes of {@code ptr}. Null when the device is not available, {@code ptr} is
     * null, {@code size} is 0 or beyond the segment, or the transport refuses (heap memory, a confined arena, a
     * full region table).
     */
    public RdmaBuffer registerBuffer(MemorySegment ptr, long size) {
        if (ptr == null || size <= 0 || size > ptr.byteSize()) {
            return refuseRegistration("registerBuffer: null memory or size " + size + " not 1.."
                    + (ptr == null ? 0 : ptr.byteSize()));
        }
        return registerSegments(new MemorySegment[] {ptr.asSlice(0, size)});
    }

    /**
     * Registers a scatter-gather list of 1 to {@value CuObj#MAX_SG_ENTRIES} entries as one buffer. Null when the
     * device is not available, the list is null, empty or longer than 10, an entry has no memory or a size of 0
     * or beyond its segment, or a registration fails (nothing stays registered then).
     */
    public RdmaBuffer registerBuffer(List<CuObjScatterGatherEntry> sglist) {
        if (sglist == null || sglist.isEmpty() || sglist.size() > CuObj.MAX_SG_ENTRIES) {
            return refuseRegistration("registerBuffer: the scatter-gather list must have 1.." + CuObj.MAX_SG_ENTRIES
                    + " entries, has " + (sglist == null ? "none" : sglist.size()));
        }
        MemorySegment[] segments = new MemorySegment[sglist.size()];
        for (int i = 0; i < segments.length; i++) {
            CuObjScatterGatherEntry e = sglist.get(i);
            if (e == null || e.addr() == null || e.size() <= 0 || e.size() > e.addr().byteSize()) {
                return refuseRegistration("registerBuffer: entry " + i + " has no memory or a size not 1..its length");
            }
            segments[i] = e.addr().asSlice(0, e.size());
        }
        return registerSegments(segments);
    }

    private RdmaBuffer registerSegments(MemorySegment[] segments) {
        Transport t = transport.get();
        if (session == null || t == null || !t.isAvailable()) {
            return refuseRegistration("registerBuffer: the RDMA device is not available");
        }
        try {
            RdmaBuffer b = RdmaBuffer.register(this, t, segments);
            buffers.add(b);
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "registered " + b + " with " + t.name());
            }
            return b;
        } catch (TransportException | RuntimeException e) {
            return refuseRegistration("registerBuffer: " + e.getMessage());
        }
    }

    private RdmaBuffer refuseRegistration(String why) {
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", why);
        }
        return null;
    }

    /**
     * A view of {@code sglist} entries ({@code offset, size}) over registered buffer {@code base}, released with
     * {@link #putRDMABufferFromSgList}. Null when the list is null or empty, {@code base} is null, not a live buffer
     * of this server, a view, or has more than one entry, or the sizes add up to more than {@code base}. Unlike C
     * every entry is also checked to lie inside {@code base} (null otherwise): a view never reaches outside it.
     */
    public RdmaBuffer getRDMABufferFromSgList(RdmaBuffer base, List<CuObjScatterGatherEntryWithOffset> sglist) {
        if (sglist == null || sglist.isEmpty()) {
            return refuseRegistration("getRDMABufferFromSgList: empty list");
        }
        if (base == null || base.owner != this || base.isView() || !base.isActive()) {
            return refuseRegistration("getRDMABufferFromSgList: the base is not a registered buffer of this server");
        }
        if (base.entryCount() != 1) {
            return refuseRegistration("getRDMABufferFromSgList: the base has " + base.entryCount()
                    + " registered entries; a view needs a base with one");
        }
        long[] offsets = new long[sglist.size()];
        long[] lengths = new long[sglist.size()];
        long total = 0;
        for (int i = 0; i < offsets.length; i++) {
            CuObjScatterGatherEntryWithOffset e = sglist.get(i);
            if (e == null || e.offset() < 0 || e.size() <= 0 || e.offset() > base.size()
                    || e.size() > base.size() - e.offset()) {
                return refuseRegistration("getRDMABufferFromSgList: entry " + i + " is not inside the base buffer");
            }
            offsets[i] = e.offset();
            lengths[i] = e.size();
            total += e.size();
            if (total > base.size()) {
                return refuseRegistration("getRDMABufferFromSgList: the view is larger than its base ("
                        + base.size() + " bytes)");
            }
        }
        RdmaBuffer view = RdmaBuffer.view(base, offsets, lengths);
        buffers.add(view);
        return view;
    }

    /** Releases a view; null or a registered buffer logs an error and changes nothing. Idempotent. */
    public void putRDMABufferFromSgList(RdmaBuffer view) {
        if (view == null || !view.isView() || view.owner != this) {
            refuseRegistration("putRDMABufferFromSgList: not a view of this server: " + view);
            return;
        }
        view.end();
        buffers.remove(view);
    }

    /**
     * Deregisters a buffer (its views end with it); null is a no-op, so is a second call. A view is not
     * deregistered here: that logs an error (use {@link #putRDMABufferFromSgList}). The memory stays the caller's.
     * Complete the buffer's transfers first: one still running fails.
     */
    public void deRegisterBuffer(RdmaBuffer buffer) {
        if (buffer == null) {
            return;
        }
        if (buffer.isView() || buffer.owner != this) {
            refuseRegistration("deRegisterBuffer: not a registered buffer of this server: " + buffer);
            return;
        }
        if (buffer.end()) {
            buffers.remove(buffer);
            buffers.removeIf(b -> b.base() == buffer);
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "deregistered " + buffer);
            }
        }
    }

    // ---------------------------------------------------------------- channels

    /** The lowest free channel id (0 first), or {@link CuObj#INVALID_CHANNEL_ID} when none is free or no session. */
    public int allocateChannelId() {
        Session s = session;
        int id = s == null ? -1 : s.channels().allocate();
        if (id < 0) {
            return CuObj.INVALID_CHANNEL_ID;
        }
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
            log.line("INFO", "channel " + id + " allocated");
        }
        return id;
    }

    /** Frees a channel; an id {@code >= num_dcis} or not allocated is a no-op. Pending completions are dropped. */
    public void freeChannelId(int channelId) {
        Session s = session;
        if (s == null) {
            return;
        }
        int outstanding = s.channels().free(channelId);
        if (outstanding > 0 && log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", "channel " + channelId + " freed with " + outstanding
                    + " asynchronous request(s) in flight; their completions are dropped");
        }
        if (outstanding >= 0 && log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
            log.line("INFO", "channel " + channelId + " freed");
        }
    }

    /** Channels allocated now (0 without a session). */
    public int allocatedChannelCount() {
        Session s = session;
        return s == null ? 0 : s.channels().allocatedCount();
    }

    /** Connections to client agents open now (0 without a session). */
    public int agentConnectionCount() {
        Session s = session;
        return s == null ? 0 : s.connections().size();
    }

    /** objrdma: asynchronous completions queued on {@code channel} and not yet polled; -1 if it is not allocated. */
    public int queuedEventCount(int channel) {
        Session s = session;
        FacadeChannels.Slot slot = s == null ? null : s.channels().allocatedSlot(channel);
        return slot == null ? -1 : slot.queued();
    }

    /** Registered buffers and views alive now. */
    public int bufferCount() {
        return buffers.size();
    }

    // ---------------------------------------------------------------- transfers

    /** {@code handleGetObject(key, buf, remote, size, descr)}: channel 0 (which must be allocated), offset 0, synchronous. */
    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, 0, 0, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset, int[] status) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
    }

    /**
     * Sends {@code size} bytes of {@code buf} (from {@code localOffset}) into the client memory at
     * {@code remoteBufStart}, by WRITE. Returns the byte count, 0 for an accepted asynchronous request
     * ({@code asyncHandle != null}), or a negative errno (class comment). {@code status[0]}, if given, receives
     * the completion's {@code ibv_wc_status} of a synchronous request.
     */
    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, asyncHandle);
    }

    /** The overload with {@code poll_delay}: accepted and ignored (completions wake the caller), as the rest. */
    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, 0, 0, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, null, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset, int[] status) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
    }

    public long handleGetObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfer(true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, asyncHandle);
    }

    /** {@code handlePutObject(key, buf, remote, size, descr)}: channel 0 (which must be allocated), offset 0, synchronous. */
    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, 0, 0, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset, int[] status) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
    }

    /**
     * Reads {@code size} bytes of client memory at {@code remoteBufStart} into {@code buf} (from
     * {@code localOffset}), by READ. Returns as {@link #handleGetObject}; on synchronous success the bytes are in
     * {@code buf} when the call returns, asynchronously once {@link #poll} reported the completion.
     */
    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, asyncHandle);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, 0, 0, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, null, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset, int[] status) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
    }

    public long handlePutObject(String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                                Duration pollDelay, int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfer(false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, asyncHandle);
    }

    /**
     * objrdma: a synchronous GET ({@code op == CUOBJ_GET}) or PUT ({@code CUOBJ_PUT}) of any size, as
     * {@code handle*Object} calls of at most 1 GiB each (the NooBaa pattern: remote start and local offset advance
     * together). The buffer must have one entry (a registered buffer or a one-entry view) unless
     * {@code size <= 1 GiB}. Returns {@code size}, or the first negative errno (earlier chunks stay done);
     * {@code -EIO} also for another {@code op} or a multi-entry buffer.
     */
    public long transferLarge(int op, String key, RdmaBuffer buf, long remoteBufStart, long size, String rdmaDescr,
                              int channel, long localOffset, int[] status) {
        if (op != CuObj.CUOBJ_GET && op != CuObj.CUOBJ_PUT) {
            return fail(op == CuObj.CUOBJ_GET, key, Errno.EIO, "transferLarge: op " + op + " is neither GET nor PUT");
        }
        boolean get = op == CuObj.CUOBJ_GET;
        if (size > CuObj.MAX_TRANSFER_SIZE && buf != null && buf.entryCount() != 1) {
            return fail(get, key, Errno.EIO, "transferLarge: a buffer with " + buf.entryCount()
                    + " entries cannot be addressed by offset");
        }
        if (size <= 0) {
            return transfer(get, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status, null);
        }
        long done = 0;
        while (done < size) {
            long chunk = Math.min(CuObj.MAX_TRANSFER_SIZE, size - done);
            long r = transfer(get, key, buf, remoteBufStart + done, chunk, rdmaDescr, channel, localOffset + done,
                    status, null);
            if (r < 0) {
                return r;
            }
            done += r;
        }
        return done;
    }

    // ---------------------------------------------------------------- transfers for a principal

    /**
     * {@link #handleGetObject(String, RdmaBuffer, long, long, String, int, long, int[], Object)} on behalf of
     * {@code principal}: the client agent the descriptor names is dialed (or its cached connection reused) only
     * with that principal's agent key, never the shared {@code agent.key}. A descriptor naming another principal's
     * agent lane fails with {@code -EIO} (status {@code REM_ACCESS_ERR}: the agent refused the key); a null
     * principal with {@code -EINVAL}.
     */
    public long handleGetObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle) {
        if (principal == null) {
            return fail(true, key, Errno.EINVAL, "no principal");
        }
        return transfer(principal, true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status,
                asyncHandle);
    }

    /** {@link #handleGetObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}, offset 0, synchronous. */
    public long handleGetObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel) {
        return handleGetObject(principal, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    /** The PUT counterpart of {@link #handleGetObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}. */
    public long handlePutObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle) {
        if (principal == null) {
            return fail(false, key, Errno.EINVAL, "no principal");
        }
        return transfer(principal, false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status,
                asyncHandle);
    }

    /** {@link #handlePutObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}, offset 0, synchronous. */
    public long handlePutObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel) {
        return handlePutObject(principal, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    private long transfer(boolean get, String key, RdmaBuffer buf, long remote, long size, String descr,
                          int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfer(null, get, key, buf, remote, size, descr, channel, localOffset, status, asyncHandle);
    }

    /** One transfer; {@code principal} null: the shared agent key (the cuObjServer-compatible overloads). */
    private long transfer(CuObjPrincipal principal, boolean get, String key, RdmaBuffer buf, long remote, long size,
                          String descr, int channel, long localOffset, int[] status, Object asyncHandle) {
        long started = System.nanoTime();
        Session s = session;
        Transport t = transport.get();
        if (s == null || t == null || !t.isAvailable()) {
            return fail(get, key, Errno.ENODEV, "the RDMA device is not available"
                    + (s == null ? " (no session)" : t == null ? " (no transport bound)" : " (" + t.unavailabilityCause()
                    .orElse("transport unavailable") + ")"));
        }
        if (principal == null && s.agentKey() == null) {
            return fail(get, key, Errno.EINVAL, "no shared agent key is configured (per-principal mode): use the"
                    + " CuObjPrincipal overloads");
        }
        if (buf == null || buf.owner != this || !buf.isActive()) {
            return fail(get, key, Errno.EIO, "no registered buffer of this server (null, deregistered or foreign)");
        }
        if (remote == 0) {
            return fail(get, key, Errno.EIO, "remote_buf_start is 0");
        }
        if (size <= 0) {
            return fail(get, key, Errno.EIO, "size is " + size);
        }
        if (size > CuObj.MAX_TRANSFER_SIZE) {
            return fail(get, key, Errno.EIO, "size " + size + " exceeds 1 GiB (use transferLarge)");
        }
        FacadeChannels.Slot slot = s.channels().allocatedSlot(channel);
        if (slot == null) {
            return fail(get, key, Errno.EIO, "channel " + channel + " is not allocated");
        }
        TokenResult<CuObjDescriptor> parsed = CuObjDescriptor.parse(descr);
        if (!parsed.isOk()) {
            return fail(get, key, Errno.EIO, "descriptor refused: " + parsed.error() + ": " + parsed.detail());
        }
        CuObjDescriptor d = parsed.value();
        if (!d.covers(remote, size)) {
            return fail(get, key, Errno.EIO, String.format("remote range [0x%x, +%d) is outside the descriptor's"
                    + " [0x%x, +%d)", remote, size, d.remoteAddress(), d.regionSize()));
        }
        if (localOffset < 0 || localOffset > buf.size() || size > buf.size() - localOffset) {
            return fail(get, key, Errno.EIO, "size " + size + " + local_offset " + localOffset
                    + " exceeds the " + buf.size() + " registered bytes");
        }
        if (buf.entryCount() > s.maxSge()) {
            return fail(get, key, Errno.EIO, "the buffer has " + buf.entryCount() + " entries, max_sge is " + s.maxSge());
        }
        if (!servesThisFlow(t)) {
            return fail(get, key, Errno.EAFNOSUPPORT, "the active transport " + t.name() + " serves " + t.flows()
                    + ", not " + Transport.FLOW_AGENT_ONE_SIDED + " (DC over verbs is not driven yet)");
        }
        if (!d.isTcpAddressable()) {
            return fail(get, key, Errno.EAFNOSUPPORT, "the descriptor names no TCP agent (has_gid "
                    + (d.hasGid() ? 1 : 0) + ", port " + d.lid() + ")");
        }
        TokenResult<InetAddress> allowed = s.addressPolicy().check(d.tcpAgentAddress().value().getAddress());
        if (!allowed.isOk()) {
            return fail(get, key, Errno.EACCES, "the descriptor's agent address is refused: " + allowed.detail());
        }
        long offset = localOffset;
        if (offset != 0 && buf.entryCount() > 1) {
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
                log.line("ERROR", "key " + key + ": local_offset " + offset + " on a buffer with " + buf.entryCount()
                        + " entries is treated as 0");
            }
            offset = 0;
        }
        List<ScatterGatherEntry> sgl;
        try {
            sgl = buf.sgList(t, offset, size);
        } catch (TransportException e) {
            return fail(get, key, Errno.ENOMEM, "registering the buffer with " + t.name() + " failed: " + e.getMessage());
        } catch (IllegalStateException e) {
            return fail(get, key, Errno.EIO, "the buffer was deregistered");
        }

        if (lastTransport != t) {
            lastTransport = t;
            s.connections().retainOnly(t); // the bound transport was replaced: its connections are of no use
        }
        AgentConnections.Lease lease;
        long dialStarted = System.nanoTime();
        try {
            // the key is part of the cached connection's identity: a lane dialed for one principal is never
            // reused for another's descriptor
            byte[] agentKey = principal == null ? s.agentKey() : principal.agentKey();
            lease = s.connections().acquire(AgentTarget.of(t, d, agentKey), () -> d.tcpEndpoint(agentKey).value());
        } catch (TransportException e) {
            if (e.error() == TransportError.RESOURCE_EXHAUSTED) {
                return fail(get, key, Errno.ENOMEM, "no room for a connection to the client agent: " + e.getMessage());
            }
            // one answer for every failed dial, after one time: a closed port, a filtered one, a port that does not
            // speak the protocol and an agent that refuses the key look the same (no port scanning through
            // descriptors); the reason goes to the server's log only
            s.dialPacing().padFailure(dialStarted);
            setStatus(status, WcStatus.RETRY_EXC_ERR);
            return fail(get, key, Errno.EIO, DialPacing.UNREACHABLE + " (" + e.getMessage() + ")");
        }

        Channel c = lease.channel();
        WorkRequest wr = new WorkRequest(nextWrId.incrementAndGet(), get ? Opcode.WRITE : Opcode.READ, sgl, remote,
                d.rkey(), 0, true);
        CompletableFuture<BatchResult> future = c.submit(List.of(wr), s.transferTimeout());
        if (future.isCompletedExceptionally()) {
            lease.release();
            TransportException why = postRefusal(future);
            if (why.error() == TransportError.RESOURCE_EXHAUSTED) {
                return fail(get, key, Errno.ENOMEM, "the connection's queue is full: " + why.getMessage());
            }
            lease.drop();
            setStatus(status, WcStatus.WR_FLUSH_ERR);
            return fail(get, key, Errno.EIO, "the request could not be posted: " + why.getMessage());
        }

        if (asyncHandle != null) {
            int generation = slot.generation();
            slot.submitted();
            future.whenComplete((batch, error) -> {
                WcStatus st = outcome(batch, error);
                if (!st.isSuccess() && c.state() != ChannelState.CONNECTED) {
                    lease.drop();
                }
                lease.release();
                finished(get, key, size, st, started, channel, true);
                slot.completed(asyncHandle, st.code(), generation);
            });
            return 0;
        }

        WcStatus st;
        try {
            st = outcome(future.get(s.transferTimeout().toMillis() + WAIT_GRACE_MS, TimeUnit.MILLISECONDS), null);
        } catch (TimeoutException e) {
            st = WcStatus.RESP_TIMEOUT_ERR; // the transport itself stalled: drop the connection, which flushes
            lease.drop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            st = WcStatus.WR_FLUSH_ERR;
            lease.drop(); // closing the connection (at release) flushes the request: the memory is free again
        } catch (ExecutionException e) {
            st = WcStatus.GENERAL_ERR;
        }
        if (!st.isSuccess() && c.state() != ChannelState.CONNECTED) {
            lease.drop();
        }
        lease.release();
        setStatus(status, st);
        if (!st.isSuccess()) {
            return fail(get, key, Errno.EIO, "the transfer failed: " + st + " (" + st.description() + ")");
        }
        finished(get, key, size, st, started, channel, false);
        return size;
    }

    private static TransportException postRefusal(CompletableFuture<BatchResult> failed) {
        try {
            failed.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof TransportException te) {
                return te;
            }
            return new TransportException(TransportError.IO, String.valueOf(e.getCause()), e.getCause());
        }
        return new TransportException(TransportError.IO, "refused");
    }

    private static WcStatus outcome(BatchResult batch, Throwable error) {
        if (error != null || batch == null) {
            return WcStatus.GENERAL_ERR;
        }
        if (batch.timedOut()) {
            return WcStatus.RESP_TIMEOUT_ERR;
        }
        for (Completion c : batch.completions()) {
            if (!c.isSuccess()) {
                return c.status();
            }
        }
        return WcStatus.SUCCESS;
    }

    private static void setStatus(int[] status, WcStatus st) {
        if (status != null && status.length > 0) {
            status[0] = st.code();
        }
    }

    /** Counts and logs a completed request (asynchronous ones also when they failed). */
    private void finished(boolean get, String key, long size, WcStatus st, long startedNanos, int channel, boolean async) {
        Telemetry tel = telemetry.get();
        if (st.isSuccess()) {
            if (tel != null) {
                tel.increment(get ? Counter.CUOBJ_GETS : Counter.CUOBJ_PUTS);
            }
            if (log.opEnabled(get ? CuObj.CUOBJ_LOG_OP_GET : CuObj.CUOBJ_LOG_OP_PUT)) {
                log.line("OP", (get ? "GET" : "PUT") + " key=" + key + " bytes=" + size + " us="
                        + (System.nanoTime() - startedNanos) / 1000 + " channel=" + channel + (async ? " async" : ""));
            }
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_DEBUG)) {
                log.line("DEBUG", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + " size=" + size
                        + " channel=" + channel + (async ? " async" : "") + " -> " + size);
            }
        } else {
            if (tel != null) {
                tel.increment(Counter.CUOBJ_ERRORS);
            }
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
                log.line("ERROR", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + " channel="
                        + channel + " async completion failed: " + st);
            }
        }
    }

    private long fail(boolean get, String key, int errno, String why) {
        Telemetry tel = telemetry.get();
        if (tel != null) {
            tel.increment(Counter.CUOBJ_ERRORS);
        }
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", (get ? "handleGetObject" : "handlePutObject") + " key=" + key + ": -"
                    + Errno.name(errno) + ": " + why);
        }
        return -errno;
    }

    // ---------------------------------------------------------------- poll

    /** {@code poll(events, max_events)} on channel 0. */
    public int poll(CuObjAsyncEvent[] events, int maxEvents) {
        return poll(events, maxEvents, 0);
    }

    /**
     * Takes up to {@code min(maxEvents, 16, events.length)} completions of asynchronous requests of
     * {@code channel} into {@code events} (its elements are reused, or created where null). Returns the number
     * taken, 0 if none is ready, {@code -ENODEV} (no session or transport), {@code -EINVAL} ({@code events}
     * null, {@code maxEvents < 0}, the channel not allocated), or {@code -EIO} when a taken completion failed:
     * events up to and including the failed one are filled and the rest stay queued.
     * {@link #pollEvents} says how many were filled.
     */
    public int poll(CuObjAsyncEvent[] events, int maxEvents, int channel) {
        if (events == null) {
            CuObjPollResult r = pollEvents(maxEvents, channel, 0);
            return r.result() < 0 ? r.result() : -Errno.EINVAL;
        }
        CuObjPollResult r = pollEvents(maxEvents, channel, events.length);
        List<CuObjAsyncEvent> got = r.events();
        for (int i = 0; i < got.size(); i++) {
            if (events[i] == null) {
                events[i] = got.get(i);
            } else {
                events[i].asyncHandle = got.get(i).asyncHandle;
                events[i].status = got.get(i).status;
            }
        }
        return r.result();
    }

    /**
     * objrdma: {@link #poll}, but when no completion is queued it waits up to {@code timeout} for one instead of
     * returning 0 (the completion wakes the thread: no spinning, no polling interval). Returns what {@code poll}
     * returns; 0 only if the timeout passed (or the thread was interrupted).
     */
    public int pollWait(CuObjAsyncEvent[] events, int maxEvents, int channel, Duration timeout) {
        int n = poll(events, maxEvents, channel);
        if (n != 0 || maxEvents == 0 || events.length == 0) {
            return n;
        }
        Session s = session;
        FacadeChannels.Slot slot = s == null ? null : s.channels().allocatedSlot(channel);
        if (slot != null && slot.awaitEvent(System.nanoTime() + timeout.toNanos())) {
            return poll(events, maxEvents, channel);
        }
        return 0;
    }

    /** objrdma: {@link #poll} that returns the events it took, failed ones included. */
    public CuObjPollResult pollEvents(int maxEvents, int channel) {
        return pollEvents(maxEvents, channel, CuObj.MAX_POLL_EVENTS);
    }

    private CuObjPollResult pollEvents(int maxEvents, int channel, int room) {
        Session s = session;
        Transport t = transport.get();
        if (s == null || t == null || !t.isAvailable()) {
            return new CuObjPollResult(-Errno.ENODEV, List.of());
        }
        FacadeChannels.Slot slot = s.channels().allocatedSlot(channel);
        if (maxEvents < 0 || slot == null) {
            return new CuObjPollResult(-Errno.EINVAL, List.of());
        }
        int limit = Math.min(Math.min(maxEvents, CuObj.MAX_POLL_EVENTS), room);
        List<CuObjAsyncEvent> out = new ArrayList<>(Math.max(0, limit));
        while (out.size() < limit) {
            FacadeChannels.Event e = slot.next();
            if (e == null) {
                break;
            }
            out.add(new CuObjAsyncEvent(e.asyncHandle(), e.status()));
            if (e.status() != WcStatus.SUCCESS.code()) {
                return new CuObjPollResult(-Errno.EIO, out);
            }
        }
        return new CuObjPollResult(out.size(), out);
    }

    // ---------------------------------------------------------------- close

    /** Ends the session, every view and registration, and frees the host buffers left (class comment). Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        List<RdmaBuffer> all = new ArrayList<>(buffers);
        buffers.clear();
        List<AutoCloseable> views = all.stream().filter(RdmaBuffer::isView).<AutoCloseable>map(b -> b::end).toList();
        List<AutoCloseable> registered = all.stream().filter(b -> !b.isView()).<AutoCloseable>map(b -> b::end)
                .toList();
        List<Arena> hostMemory = new ArrayList<>();
        for (Long address : new ArrayList<>(hostBuffers.keySet())) {
            Arena a = hostBuffers.remove(address);
            if (a != null) {
                hostMemory.add(a);
            }
        }
        try {
            // every step runs even when one throws (a deregistration the device refuses): the first failure is
            // thrown afterwards with the others suppressed on it
            Closer.closeAll(this::closeRDMASession, Closer.all(views), Closer.all(registered), Closer.all(hostMemory));
        } finally {
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "server " + ip + ":" + port + " closed");
            }
        }
    }

    @Override
    public String toString() {
        Session s = session;
        Transport t = transport.get();
        return "CuObjServer[" + ip + ":" + port + (s == null ? ", no session" : ", " + s.channels().count()
                + " channels, " + s.connections().size() + " agent connections") + ", transport "
                + (t == null ? "none" : t.name()) + "]";
    }
}
