package org.objrdma.cuobj;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.cuobj.internal.ContainerDefaults;
import org.objrdma.cuobj.internal.FacadeChannels;
import org.objrdma.cuobj.internal.ProcessTelemetry;
import org.objrdma.cuobj.internal.ServerSession;
import org.objrdma.cuobj.internal.TcpTunables;
import org.objrdma.cuobj.internal.TelemetryLog;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.Errno;

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
 * <p><b>Construction.</b> Inside the container the C-style constructors take the transport and the agent key from
 * the active DS component {@code org.objrdma.cuobj} (looked up through this bundle's service registry, the
 * transport on every call; {@code ContainerDefaults}); outside it they have no transport ({@code -ENODEV}).
 * {@link #CuObjServer(Transport, String, int, int, CuObjRDMATunable)} and {@link #builder()} take them explicitly. Construction never throws for bad
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
 * <p><b>Parts.</b> The memory the server owns is {@code ServerBuffers}'; a transfer runs through
 * {@code TransferPath} (checks, {@link TransferFlow}, connection, work request) and is reported by
 * {@code TransferReport}; the session's state is an {@code internal.ServerSession}. The gateway binds the
 * {@link CuObjService} interface, which this class implements.
 *
 * <p><b>Threads.</b> As documented for cuObject: one channel is used by one thread at a time; registration,
 * deregistration, views, channel allocation and telemetry setup are safe from any thread.
 *
 * <p><b>Ownership.</b> The server owns its registrations, its connections to client agents and the host
 * buffers {@link #allocHostBuffer} made; {@link #close()} ends them in that order: session (connections closed,
 * in-flight transfers flushed), views, registered buffers, host buffers. Idempotent.
 */
public class CuObjServer extends RDMAConnection implements CuObjService, AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CuObjServer.class);

    // ---------------------------------------------------------------- telemetry setup (static in the C API)

    /**
     * Sends telemetry of servers created from now on to {@code os} (a {@code PrintStream}, {@code Writer}, …).
     * OpenTelemetry is not built in, so {@code useOtel} falls back to the stream, as cuObject does without it.
     * A null {@code os} keeps the default (SLF4J logger {@code org.objrdma.cuobj.telemetry}).
     */
    public static void setupTelemetry(boolean useOtel, Appendable os) {
        ProcessTelemetry.setup(os);
        if (useOtel) {
            TelemetryLog.DEFAULT.info("cuobj telemetry: OpenTelemetry is not built in; using the stream");
        }
    }

    /** Back to the default output; servers alive stop writing to the stream, which may be closed afterwards. */
    public static void shutdownTelemetry() {
        ProcessTelemetry.shutdown();
    }

    /** {@code CUOBJ_LOG_PATH_*} bits for servers created from now on; 0 disables; other bits are ignored. */
    public static void setTelemFlags(int flags) {
        ProcessTelemetry.flags(flags, -1);
    }

    /** The 2.x form: path flags and {@code CUOBJ_LOG_OP_*} flags (0 by default). */
    public static void setTelemFlags(int flags, int opFlags) {
        ProcessTelemetry.flags(flags, opFlags & 0x3);
    }

    // ---------------------------------------------------------------- instance

    private final Supplier<Transport> transport;
    private final Supplier<Telemetry> telemetry;
    private final TelemetryLog log;
    private final int proto;
    private final ServerBuffers buffers;
    private final TransferReport report;
    private final TransferPath transfers;
    private volatile ServerSession session;
    private volatile boolean closed;

    /** A server with default tunables on the component's transport (inside the container); check {@link #isConnected()}. */
    public CuObjServer(String ip, int port, int proto) {
        this(ip, port, proto, new CuObjRDMATunable());
    }

    /** A server with {@code params} (copied) on the component's transport (inside the container); check {@link #isConnected()}. */
    public CuObjServer(String ip, int port, int proto, CuObjRDMATunable params) {
        this(ContainerDefaults.transport(), () -> Telemetry.NOOP, ip, port, proto, params, null);
    }

    /** A server on {@code transport}; check {@link #isConnected()}. */
    public CuObjServer(Transport transport, String ip, int port, int proto, CuObjRDMATunable params) {
        this(() -> transport, () -> Telemetry.NOOP, ip, port, proto, params, null);
    }

    CuObjServer(Supplier<Transport> transport, Supplier<Telemetry> telemetry, String ip, int port, int proto,
                        CuObjRDMATunable params, int[] telemetryFlagsOverride) {
        super(ip, port, params);
        this.transport = transport;
        this.telemetry = telemetry;
        this.proto = proto;
        this.log = ProcessTelemetry.newLog(telemetryFlagsOverride);
        this.buffers = new ServerBuffers(this, transport, log);
        this.report = new TransferReport(telemetry, log);
        this.transfers = new TransferPath(this, transport, () -> session, report);
        startRDMASession();
    }

    /** objrdma's way to build a server with an explicit transport supplier, telemetry and flags. */
    public static CuObjServerBuilder builder() {
        return new CuObjServerBuilder();
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
            CuObjRDMATunable p;
            synchronized (params) {
                p = new CuObjRDMATunable(params);
            }
            String problem = ServerSession.problem(ip, port, p);
            if (problem != null) {
                LOG.error("cuObjServer {}:{}: session not started: {}", ip, port, problem);
                if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
                    log.line("ERROR", "session not started: " + problem);
                }
                return -1;
            }
            ServerSession s = ServerSession.start(p, ContainerDefaults::agentKey, telemetry);
            session = s;
            if (s.agentKey() == null) {
                LOG.info("cuObjServer {}:{}: no shared agent key: per-principal mode, the cuObjServer-compatible"
                        + " transfer overloads answer -EINVAL (only the CuObjPrincipal overloads dial agents)", ip, port);
            }
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "session started on " + ip + ":" + port + " proto " + proto + " " + p);
            }
            Transport t = transport.get();
            LOG.info("cuObjServer {}:{}: agent dial timeout {} (timeout {}, retry_cnt {}); tunables with no effect on"
                    + " transport {}: {}", ip, port, s.connectTimeout(), p.getTimeout(), p.getRetryCount(),
                    t == null ? "none" : t.name(), String.join(", ", TcpTunables.ignored(p)));
            return 0;
        }
    }

    @Override
    public final void closeRDMASession() {
        ServerSession s;
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
     * True while the session is started and the bound transport is available and has a flow of this facade
     * ({@link TransferFlow}): only then can a transfer succeed (with a verbs transport it is false).
     */
    @Override
    public boolean isConnected() {
        Transport t = transport.get();
        return session != null && t != null && t.isAvailable() && TransferFlow.of(t) != TransferFlow.UNSUPPORTED;
    }

    /** The transport bound now, or null. */
    public Transport transport() {
        return transport.get();
    }

    // ---------------------------------------------------------------- memory (ServerBuffers)

    /**
     * Page-aligned host memory of {@code size} bytes ({@value CuObj#HOST_BUFFER_ALIGNMENT}-byte alignment), from a
     * shared arena of its own; null for {@code size <= 0} or when the allocation fails. Release it with
     * {@link #freeHostBuffer} (the {@code free()} of C); {@link #close()} frees what is left.
     */
    public MemorySegment allocHostBuffer(long size) {
        return buffers.allocHost(size);
    }

    /**
     * Frees memory {@link #allocHostBuffer} returned; null or anything else is ignored; idempotent. Deregister it
     * first: using it afterwards throws {@link IllegalStateException} instead of touching freed memory.
     */
    public void freeHostBuffer(MemorySegment buffer) {
        buffers.freeHost(buffer);
    }

    /**
     * Registers the first {@code size} bytes of {@code ptr}. Null when the device is not available, {@code ptr} is
     * null, {@code size} is 0 or beyond the segment, or the transport refuses (heap memory, a confined arena, a
     * full region table).
     */
    @Override
    public RdmaBuffer registerBuffer(MemorySegment ptr, long size) {
        return buffers.register(ptr, size, session != null);
    }

    /**
     * Registers a scatter-gather list of 1 to {@value CuObj#MAX_SG_ENTRIES} entries as one buffer. Null when the
     * device is not available, the list is null, empty or longer than 10, an entry has no memory or a size of 0
     * or beyond its segment, or a registration fails (nothing stays registered then).
     */
    public RdmaBuffer registerBuffer(List<CuObjScatterGatherEntry> sglist) {
        return buffers.register(sglist, session != null);
    }

    /**
     * A view of {@code sglist} entries ({@code offset, size}) over registered buffer {@code base}, released with
     * {@link #putRDMABufferFromSgList}. Null when the list is null or empty, {@code base} is null, not a live buffer
     * of this server, a view, or has more than one entry, or the sizes add up to more than {@code base}. Unlike C
     * every entry is also checked to lie inside {@code base} (null otherwise): a view never reaches outside it.
     */
    public RdmaBuffer getRDMABufferFromSgList(RdmaBuffer base, List<CuObjScatterGatherEntryWithOffset> sglist) {
        return buffers.view(base, sglist);
    }

    /** Releases a view; null or a registered buffer logs an error and changes nothing. Idempotent. */
    public void putRDMABufferFromSgList(RdmaBuffer view) {
        buffers.releaseView(view);
    }

    /**
     * Deregisters a buffer (its views end with it); null is a no-op, so is a second call. A view is not
     * deregistered here: that logs an error (use {@link #putRDMABufferFromSgList}). The memory stays the caller's.
     * Complete the buffer's transfers first: one still running fails.
     */
    @Override
    public void deRegisterBuffer(RdmaBuffer buffer) {
        buffers.deregister(buffer);
    }

    // ---------------------------------------------------------------- channels

    /** The lowest free channel id (0 first), or {@link CuObj#INVALID_CHANNEL_ID} when none is free or no session. */
    @Override
    public int allocateChannelId() {
        ServerSession s = session;
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
    @Override
    public void freeChannelId(int channelId) {
        ServerSession s = session;
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
    @Override
    public int allocatedChannelCount() {
        ServerSession s = session;
        return s == null ? 0 : s.channels().allocatedCount();
    }

    /** Connections to client agents open now (0 without a session). */
    public int agentConnectionCount() {
        ServerSession s = session;
        return s == null ? 0 : s.connections().size();
    }

    /** objrdma: asynchronous completions queued on {@code channel} and not yet polled; -1 if it is not allocated. */
    public int queuedEventCount(int channel) {
        ServerSession s = session;
        FacadeChannels.Slot slot = s == null ? null : s.channels().allocatedSlot(channel);
        return slot == null ? -1 : slot.queued();
    }

    /** Registered buffers and views alive now. */
    public int bufferCount() {
        return buffers.count();
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
        return transfers.transferLarge(op, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status);
    }

    // ---------------------------------------------------------------- transfers for a principal

    /**
     * {@link #handleGetObject(String, RdmaBuffer, long, long, String, int, long, int[], Object)} on behalf of
     * {@code principal}: the client agent the descriptor names is dialed (or its cached connection reused) only
     * with that principal's agent key, never the shared {@code agent.key}. A descriptor naming another principal's
     * agent lane fails with {@code -EIO} (status {@code REM_ACCESS_ERR}: the agent refused the key); a null
     * principal with {@code -EINVAL}.
     */
    @Override
    public long handleGetObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle) {
        if (principal == null) {
            return report.fail(true, key, Errno.EINVAL, "no principal");
        }
        return transfers.transfer(principal, true, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status,
                asyncHandle);
    }

    /** {@link #handleGetObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}, offset 0, synchronous. */
    public long handleGetObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel) {
        return handleGetObject(principal, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    /** The PUT counterpart of {@link #handleGetObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}. */
    @Override
    public long handlePutObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle) {
        if (principal == null) {
            return report.fail(false, key, Errno.EINVAL, "no principal");
        }
        return transfers.transfer(principal, false, key, buf, remoteBufStart, size, rdmaDescr, channel, localOffset, status,
                asyncHandle);
    }

    /** {@link #handlePutObject(CuObjPrincipal, String, RdmaBuffer, long, long, String, int, long, int[], Object)}, offset 0, synchronous. */
    public long handlePutObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                                String rdmaDescr, int channel) {
        return handlePutObject(principal, key, buf, remoteBufStart, size, rdmaDescr, channel, 0, null, null);
    }

    private long transfer(boolean get, String key, RdmaBuffer buf, long remote, long size, String descr,
                          int channel, long localOffset, int[] status, Object asyncHandle) {
        return transfers.transfer(null, get, key, buf, remote, size, descr, channel, localOffset, status, asyncHandle);
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
        ServerSession s = session;
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
        return ChannelEvents.take(session, transport.get(), maxEvents, channel, room);
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
        try {
            buffers.closeAfter(this::closeRDMASession);
        } finally {
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "server " + ip + ":" + port + " closed");
            }
        }
    }

    @Override
    public String toString() {
        ServerSession s = session;
        Transport t = transport.get();
        return "CuObjServer[" + ip + ":" + port + (s == null ? ", no session" : ", " + s.channels().count()
                + " channels, " + s.connections().size() + " agent connections") + ", transport "
                + (t == null ? "none" : t.name()) + "]";
    }
}
