package org.objrdma.client;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;
import org.objrdma.wire.RemoteSlice;

/**
 * The client side of the cuObject flow over the TCP transport: the memory agent channels a server connects
 * to, and the descriptors that name them ({@code cuObjClient} with {@code cuMemObjGetRDMAToken}).
 *
 * <p><b>How it works.</b> The transport is the memory agent (its socket checks rkey, access and bounds of every
 * remote access). The agent opens {@code lanes} channels with the shared agent key as their access key
 * ({@code ChannelOptions.accessKey}) and never connects them: a channel in INIT accepts one authenticated
 * inbound connection, which the server makes when it first serves a descriptor naming that channel, and keeps.
 * One lane is one TCP connection, to the first server that dials it; use more lanes to let one server run several transfers to this
 * client in parallel streams.
 *
 * <p><b>Several servers.</b> An agent channel accepts one server for its life (the TCP stand-in for a DC target
 * accepts any number of initiators, so this is where the emulation differs): once gateway a has dialed lane 0 and
 * keeps that connection, a descriptor naming lane 0 sent to gateway c makes c's dial be refused, and the transfer
 * fails there ({@code RDMATransferFailed}, {@code -EIO}) after c's failed-dial delay. A client of several gateways
 * (a fleet, issue 28) therefore names the gateway it sends the request to: {@link #get(String, ClientMemory, long,
 * long, CuObjRequestHandler)}, {@link #put(String, ClientMemory, long, long, CuObjRequestHandler)},
 * {@link #descriptor(ClientMemory, long, long, Op, String)}. The agent keeps one channel per named server (opened
 * at its first transfer, at most {@link #MAX_SERVERS}), with the lanes' reset rules. The lane methods are for a
 * client of one gateway. A client that cannot know which server serves a request (a load balancer in front of
 * several gateways) must not share one agent across them: open one agent per gateway it can address.
 *
 * <p>A lane whose connection ended (the server went away or dropped it, a transfer
 * failed) is {@link Channel#reset() reset} by the next {@link #descriptor} call on it: back to INIT with the same
 * channel id and key, so descriptors already handed out stay valid and the server can dial again. Until that
 * call a server's dial to the lane is refused (its request fails with {@code -EIO}, which cuObject clients
 * retry). Only a lane that cannot be reset (or was closed) gets a new channel, and with it a new id.
 *
 * <p><b>Grants.</b> Memory is registered local-only ({@link ClientMemory}); each descriptor carries the rkey of a
 * grant of exactly its slice on the lane it names (GET: remote write, PUT: remote read), so only the server
 * connected to that lane reaches it, and only until the grant is revoked: {@link #get} / {@link #put} revoke it
 * when the transfer ends, the caller of {@link #descriptor} closes the {@link CuObjGrant}. A lane reset revokes
 * the lane's grants.
 *
 * <p><b>Keys.</b> Open the agent with the key of the principal whose credential the S3 requests carry
 * ({@link #openForPrincipal}: {@code AgentKeys.forPrincipal(secret)}), so a server dials it only on behalf of that
 * principal; {@link #open} takes any key (the shared {@code agent.key} of the cuObjServer-compatible mode).
 *
 * <p><b>Limits.</b> A descriptor names at most 2^32 - 1 bytes (its rsize field) of registered memory; a
 * channel id above 2^24 - 1 (the qp field) cannot be described, so {@link #descriptor} refuses it with
 * {@code RESOURCE_EXHAUSTED} — a transport has handed out 16 million channels by then; restart it. DC over verbs
 * is not supported: {@link #open} refuses a verbs transport.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public final class CuObjAgent implements AutoCloseable {
    /** A server's limit per {@code handleGetObject} / {@code handlePutObject}: 1 GiB. */
    public static final long DEFAULT_MAX_REQUEST_SIZE = 1L << 30;
    /** The most servers one agent keeps a channel for ({@link #channel(String)}). */
    public static final int MAX_SERVERS = 256;

    private final Transport transport;
    private final byte[] agentKey;
    private final long maxRequestSize;
    private final Channel[] lanes;
    /** One channel per named server, in the order first named; guarded by this. */
    private final java.util.Map<String, Channel> servers = new java.util.LinkedHashMap<>();
    private boolean closed;

    private CuObjAgent(Transport transport, byte[] agentKey, int lanes, long maxRequestSize) {
        this.transport = transport;
        this.agentKey = agentKey;
        this.maxRequestSize = maxRequestSize;
        this.lanes = new Channel[lanes];
    }

    /**
     * An agent with one lane keyed for one principal: the key is {@code AgentKeys.forPrincipal(secretAccessKey)},
     * which the server derives from the same credential.
     */
    public static CuObjAgent openForPrincipal(Transport transport, String secretAccessKey) throws TransportException {
        if (secretAccessKey == null || secretAccessKey.isEmpty()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "no secret access key");
        }
        return open(transport, AgentKeys.forPrincipal(secretAccessKey));
    }

    /** An agent with one lane and requests of at most 1 GiB. */
    public static CuObjAgent open(Transport transport, byte[] agentKey) throws TransportException {
        return open(transport, agentKey, 1, DEFAULT_MAX_REQUEST_SIZE);
    }

    /**
     * Opens the agent: {@code lanes} channels on {@code transport} with {@code agentKey} as their access key.
     *
     * @param maxRequestSize largest request handed to the {@link CuObjRequestHandler}, 1 .. 1 GiB; larger transfers
     *                       are split, as {@code cuMemObjGetMaxRequestCallbackSize} says
     * @throws TransportException INVALID_ARGUMENT for a transport that is not TCP (DC over verbs is not
     *         supported), a key not 16..64 bytes, lanes not 1..1024, a bad request size; what
     *         {@link Transport#openChannel} throws (nothing stays open then)
     */
    public static CuObjAgent open(Transport transport, byte[] agentKey, int lanes, long maxRequestSize)
            throws TransportException {
        Objects.requireNonNull(transport, "transport");
        if (transport.level() != TransportLevel.TCP) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "cuObject descriptors need a DC target; the "
                    + transport.level() + " transport " + transport.name() + " has none (DC over verbs is not supported"
                    + " yet): use the TCP transport");
        }
        if (agentKey == null || agentKey.length < AgentKeys.MIN_LENGTH || agentKey.length > AgentKeys.MAX_LENGTH) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "the agent key must be 16..64 bytes");
        }
        if (lanes < 1 || lanes > 1024) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "lanes must be 1..1024, was " + lanes);
        }
        if (maxRequestSize < 1 || maxRequestSize > DEFAULT_MAX_REQUEST_SIZE) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "maxRequestSize must be 1 .. 1 GiB, was " + maxRequestSize);
        }
        CuObjAgent agent = new CuObjAgent(transport, agentKey.clone(), lanes, maxRequestSize);
        try {
            for (int i = 0; i < lanes; i++) {
                agent.lanes[i] = agent.openLane();
            }
        } catch (TransportException | RuntimeException e) {
            agent.close();
            throw e;
        }
        return agent;
    }

    private Channel openLane() throws TransportException {
        // the channel never posts anything: it only accepts the server's connection and lets it touch memory
        ChannelOptions options = new ChannelOptions(1, 1, 1, Duration.ofSeconds(10), agentKey);
        return transport.openChannel(options);
    }

    /** The transport the agent runs on. */
    public Transport transport() {
        return transport;
    }

    /** Number of lanes. */
    public int lanes() {
        return lanes.length;
    }

    /** Largest request handed to a handler. */
    public long maxRequestSize() {
        return maxRequestSize;
    }

    /**
     * The channel of {@code lane} now: reset first if its connection ended (same id and key), replaced by a new
     * channel if it cannot be reset or was closed.
     *
     * @throws TransportException CLOSED after {@link #close()}; what {@link Transport#openChannel} throws
     */
    public synchronized Channel channel(int lane) throws TransportException {
        Objects.checkIndex(lane, lanes.length);
        checkOpen();
        Channel c = usable(lanes[lane]);
        lanes[lane] = c;
        return c;
    }

    /**
     * The channel kept for {@code server} (any stable name of one gateway, e.g. its endpoint URI), opened at its
     * first use; reset or replaced as {@link #channel(int)} does for a lane.
     *
     * @throws IllegalArgumentException a null or empty name
     * @throws TransportException CLOSED after {@link #close()}; RESOURCE_EXHAUSTED when {@link #MAX_SERVERS}
     *         servers have a channel already; what {@link Transport#openChannel} throws
     */
    public synchronized Channel channel(String server) throws TransportException {
        if (server == null || server.isEmpty()) {
            throw new IllegalArgumentException("no server name");
        }
        checkOpen();
        Channel c = servers.get(server);
        if (c == null) {
            if (servers.size() >= MAX_SERVERS) {
                throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "this agent keeps channels for "
                        + MAX_SERVERS + " servers already: open another agent");
            }
            c = openLane();
        } else {
            c = usable(c);
        }
        servers.put(server, c);
        return c;
    }

    private void checkOpen() throws TransportException {
        if (closed) {
            throw new TransportException(TransportError.CLOSED, "the agent is closed");
        }
    }

    /** {@code c} reset if its connection ended (same id and key), or a new channel if it cannot be reset or was closed. */
    private Channel usable(Channel c) throws TransportException {
        if (c.state() == ChannelState.ERROR) {
            try {
                c.reset(); // keeps the channel id: descriptors naming it stay valid
            } catch (TransportException e) {
                c.close(); // TIMEOUT or IO: the channel stays in ERROR; a fresh one gets a new id
            }
        }
        if (c.state() == ChannelState.CLOSED || c.state() == ChannelState.ERROR) {
            c.close();
            c = openLane();
        }
        return c;
    }

    /** {@link #descriptor(ClientMemory, long, long, Op, int)} on lane 0. */
    public CuObjGrant descriptor(ClientMemory memory, long bufferOffset, long size, Op op)
            throws TransportException {
        return descriptor(memory, bufferOffset, size, op, 0);
    }

    /**
     * The descriptor of {@code [bufferOffset, bufferOffset + size)} of {@code memory} for {@code op}
     * ({@code cuMemObjGetRDMAToken}) and the grant it names: exactly that slice, on the agent channel of
     * {@code lane}, remote write for GET and remote read for PUT. Close the grant when the transfer ended.
     *
     * @throws IllegalArgumentException memory of another transport or closed, a range outside it, size 0 or
     *         above 2^32 - 1, a lane out of range
     * @throws TransportException CLOSED, RESOURCE_EXHAUSTED (a channel id beyond 24 bits, or the lane holds
     *         the transport's most grants), or what reopening a failed lane or granting throws
     */
    public CuObjGrant descriptor(ClientMemory memory, long bufferOffset, long size, Op op, int lane)
            throws TransportException {
        checkRange(memory, bufferOffset, size, op);
        Objects.checkIndex(lane, lanes.length);
        return grant(memory, bufferOffset, size, op, channel(lane));
    }

    /**
     * As {@link #descriptor(ClientMemory, long, long, Op, int)} on the channel kept for {@code server}
     * ({@link #channel(String)}): the descriptor to send to that server only.
     *
     * @throws IllegalArgumentException also for a null or empty server name
     * @throws TransportException also RESOURCE_EXHAUSTED past {@link #MAX_SERVERS} servers
     */
    public CuObjGrant descriptor(ClientMemory memory, long bufferOffset, long size, Op op, String server)
            throws TransportException {
        checkRange(memory, bufferOffset, size, op);
        return grant(memory, bufferOffset, size, op, channel(server));
    }

    private CuObjGrant grant(ClientMemory memory, long bufferOffset, long size, Op op, Channel c)
            throws TransportException {
        if (size > CuObjDescriptor.MAX_REGION_SIZE) {
            throw new IllegalArgumentException("a descriptor describes at most 2^32 - 1 bytes, asked " + size);
        }
        EndpointInfo.Tcp me = c.localEndpoint().as(EndpointInfo.Tcp.class).orElseThrow(() -> new TransportException(
                TransportError.INVALID_ARGUMENT, "a cuObject descriptor names a TCP memory agent, the channel is "
                + c.localEndpoint().kind()));
        if (me.channelId() > CuObjDescriptor.MAX_TARGET_NUMBER) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "channel id " + me.channelId()
                    + " does not fit the descriptor's 24-bit qp field: restart the transport");
        }
        RemoteSlice slice = RemoteSlice.open(transport, c, memory.region(), bufferOffset, size,
                EnumSet.of(op == Op.GET ? Access.REMOTE_WRITE : Access.REMOTE_READ));
        InetSocketAddress agentAddress = me.address();
        return new CuObjGrant(CuObjDescriptor.forTcpAgent(agentAddress, me.channelId(), slice.remote().address(),
                slice.remote().length(), slice.rkey()), slice);
    }

    private void checkRange(ClientMemory memory, long bufferOffset, long size, Op op) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(op, "op");
        if (memory.transport() != transport) {
            throw new IllegalArgumentException("the memory is registered with another transport");
        }
        if (!memory.isOpen()) {
            throw new IllegalArgumentException("the memory is no longer registered");
        }
        if (size <= 0 || bufferOffset < 0 || bufferOffset > memory.size() || size > memory.size() - bufferOffset) {
            throw new IllegalArgumentException("range [" + bufferOffset + ", +" + size + ") outside the "
                    + memory.size() + " registered bytes or empty");
        }
    }

    /**
     * GETs {@code size} bytes of an object into {@code [bufferOffset, +size)} of {@code memory} ({@code cuObjGet}):
     * hands one request per {@link #maxRequestSize()} chunk to {@code handler}, in order, object offsets from 0.
     *
     * @return bytes received (less than {@code size} if the server reported a short chunk, i.e. the object ended);
     *         {@code -EINVAL} for bad arguments (nothing sent); a handler's negative return as is;
     *         {@code -EIO} if the handler reports more bytes than asked, or the agent channel cannot be opened
     */
    public long get(ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler) {
        return run(Op.GET, memory, bufferOffset, size, handler, 0);
    }

    /**
     * PUTs {@code [bufferOffset, +size)} of {@code memory} ({@code cuObjPut}), one request per chunk as
     * {@link #get} does.
     *
     * @return {@code size}; {@code -EINVAL} for bad arguments; a handler's negative return; {@code -EIO} if a
     *         handler reports any other count than its chunk's size, or the agent channel cannot be opened
     */
    public long put(ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler) {
        return run(Op.PUT, memory, bufferOffset, size, handler, 0);
    }

    /**
     * {@link #get} through the gateway named {@code server}: the descriptors name the channel kept for it
     * ({@link #channel(String)}), so any number of gateways can serve one agent. {@code -EINVAL} also for a null
     * or empty name; {@code -EIO} also past {@link #MAX_SERVERS} servers.
     */
    public long get(String server, ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler) {
        return run(Op.GET, memory, bufferOffset, size, handler, () -> descriptor(memory, bufferOffset, size, Op.GET, server));
    }

    /** {@link #put} through the gateway named {@code server}, as {@link #get(String, ClientMemory, long, long, CuObjRequestHandler)}. */
    public long put(String server, ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler) {
        return run(Op.PUT, memory, bufferOffset, size, handler, () -> descriptor(memory, bufferOffset, size, Op.PUT, server));
    }

    /** {@link #get} or {@link #put} on a given lane. */
    public long run(Op op, ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler, int lane) {
        return run(op, memory, bufferOffset, size, handler, () -> descriptor(memory, bufferOffset, size, op, lane));
    }

    private interface GrantSource {
        CuObjGrant open() throws TransportException;
    }

    private long run(Op op, ClientMemory memory, long bufferOffset, long size, CuObjRequestHandler handler,
            GrantSource source) {
        CuObjGrant grant;
        try {
            Objects.requireNonNull(handler, "handler");
            grant = source.open();
        } catch (IllegalArgumentException | NullPointerException | IndexOutOfBoundsException e) {
            return -Errno.EINVAL;
        } catch (TransportException e) {
            return -Errno.EIO;
        }
        try (grant) {
            return transfer(op, grant.descriptor(), size, handler);
        }
    }

    private long transfer(Op op, CuObjDescriptor d, long size, CuObjRequestHandler handler) {
        long done = 0;
        while (done < size) {
            long chunk = Math.min(maxRequestSize, size - done);
            long moved = handler.transfer(new CuObjRequest(op, d, d.remoteAddress() + done, chunk, done));
            if (moved < 0) {
                return moved;
            }
            if (moved > chunk || (op == Op.PUT && moved != chunk)) {
                return -Errno.EIO;
            }
            done += moved;
            if (moved < chunk) {
                break; // a short GET: the object ended
            }
        }
        return done;
    }

    /** Closes every lane and server channel (servers connected to them see the connection end); idempotent. */
    @Override
    public void close() {
        Channel[] open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            List<Channel> all = new ArrayList<>(Arrays.asList(lanes));
            all.addAll(servers.values());
            open = all.toArray(Channel[]::new);
        }
        for (Channel c : open) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Override
    public String toString() {
        return "CuObjAgent[" + transport.name() + ", " + lanes.length + " lane(s)]";
    }
}
