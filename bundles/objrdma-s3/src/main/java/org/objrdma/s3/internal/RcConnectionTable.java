package org.objrdma.s3.internal;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RcConnectionSettings;
import org.objrdma.s3.rdma.RcConnections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open cuObject-over-RC connections: made by the unsigned {@code POST /.s3rdma-rc/connect} within the bounds
 * of {@link RcConnectionSettings} (in total and per source address), bound to the principal of the first signed
 * object request that uses one, used by one request at a time, ended by disconnect, by a failed transfer, by the
 * reaper (idle, or never bound) and by {@link #close()}. Ending a connection closes its queue pair.
 */
public final class RcConnectionTable implements RcConnections {

    private static final Logger LOG = LoggerFactory.getLogger(RcConnectionTable.class);

    /** What connect answers: the connection id and the server's queue pair. */
    record Connected(String id, EndpointInfo.Verbs server) {
    }

    private final Supplier<Transport> transport;
    private final SecureRandom ids = new SecureRandom();
    private final ScheduledExecutorService reaper;
    private volatile RcConnectionSettings settings;
    // guarded by this
    private final Map<String, RcConnection> connections = new HashMap<>();
    private final Map<String, Integer> perSource = new HashMap<>();
    private int reserved;
    private boolean closed;

    /** @param transport the verbs transport connections are made on (null while there is none) */
    public RcConnectionTable(Supplier<Transport> transport, RcConnectionSettings settings) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "objrdma-s3-rc-reaper");
            t.setDaemon(true);
            return t;
        });
        reaper.scheduleWithFixedDelay(this::reap, 250, 250, TimeUnit.MILLISECONDS);
    }

    /** New bounds apply to the next connect and the next reaping; open connections stay. */
    public void settings(RcConnectionSettings s) {
        settings = Objects.requireNonNull(s, "settings");
    }

    RcConnectionSettings settings() {
        return settings;
    }

    @Override
    public synchronized int open() {
        return connections.size();
    }

    /**
     * Opens a queue pair on the verbs transport and connects it to {@code client} (RTR with the client's QPN, GID
     * and PSN, RTS with the queue pair's own random PSN).
     *
     * @throws S3Exception 503 without a transport or at a bound; 502 when the queue pair could not be connected
     */
    Connected connect(EndpointInfo.Verbs client, String source) throws S3Exception {
        Transport t = transport.get();
        if (t == null || !t.isAvailable()) {
            throw new S3Exception(RcConnectionRoutes.UNAVAILABLE, 503,
                    "No verbs transport serves RC connections on this gateway");
        }
        reserve(source);
        Channel channel = null;
        boolean kept = false;
        try {
            channel = t.openChannel(ChannelOptions.DEFAULT);
            channel.connect(client);
            String id = newId();
            EndpointInfo.Verbs server = channel.localEndpoint().as(EndpointInfo.Verbs.class).orElseThrow(
                    () -> new S3Exception(RcConnectionRoutes.UNAVAILABLE, 503, "The RC transport is not a verbs transport"));
            RcConnection c = new RcConnection(id, source, t, channel, System.nanoTime());
            synchronized (this) {
                if (closed) {
                    throw new S3Exception(RcConnectionRoutes.UNAVAILABLE, 503, "The gateway is stopping");
                }
                connections.put(id, c);
            }
            kept = true;
            LOG.debug("RC connection {} opened for {}", c, client);
            return new Connected(id, server);
        } catch (TransportException e) {
            if (e.error() == TransportError.RESOURCE_EXHAUSTED) {
                throw new S3Exception(RcConnectionRoutes.LIMIT, 503, "The RDMA device has no queue pair left");
            }
            throw new S3Exception(RcConnectionRoutes.CONNECT_FAILED, 502,
                    "The queue pair could not be connected to the client's: " + e.getMessage());
        } finally {
            if (!kept) {
                if (channel != null) {
                    channel.close();
                }
                unreserve(source);
            }
        }
    }

    private synchronized void reserve(String source) throws S3Exception {
        RcConnectionSettings s = settings;
        if (closed) {
            throw new S3Exception(RcConnectionRoutes.UNAVAILABLE, 503, "The gateway is stopping");
        }
        if (reserved >= s.maxConnections()) {
            throw new S3Exception(RcConnectionRoutes.LIMIT, 503, "Every RC connection is in use ("
                    + s.maxConnections() + ", rdma.rc.max.connections); disconnect one or retry later");
        }
        int mine = perSource.getOrDefault(source, 0);
        if (mine >= s.maxPerSource()) {
            throw new S3Exception(RcConnectionRoutes.LIMIT, 503, "This source has " + mine
                    + " RC connections open (rdma.rc.max.connections.per.source); disconnect one or retry later");
        }
        reserved++;
        perSource.put(source, mine + 1);
    }

    private synchronized void unreserve(String source) {
        reserved--;
        perSource.computeIfPresent(source, (k, n) -> n <= 1 ? null : n - 1);
    }

    private String newId() {
        byte[] b = new byte[16];
        ids.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Ends the connection now, or when its request ends if one is running; unknown ids change nothing. */
    void disconnect(String id) {
        RcConnection ended;
        synchronized (this) {
            RcConnection c = connections.get(id);
            if (c == null) {
                return;
            }
            if (c.busy) {
                c.endRequested = true;
                return;
            }
            ended = remove(c);
        }
        finish(ended, "disconnected");
    }

    /**
     * The connection for one signed object request of {@code principal}: binds it on first use, marks it busy.
     *
     * @throws S3Exception 400 for an unknown or ended connection, 403 for another principal's, 409 while another
     *         request uses it
     */
    RcConnection acquire(String id, PrincipalId principal) throws S3Exception {
        RcConnection ended = null;
        try {
            synchronized (this) {
                RcConnection c = connections.get(id);
                if (c != null && !c.usable() && !c.busy) {
                    ended = remove(c);
                    c = null;
                }
                if (c == null) {
                    throw new S3Exception(CuObjOperations.INVALID_TOKEN, 400, "The x-amz-rdma-token names no open RC"
                            + " connection (never made, disconnected, failed or reaped): connect again");
                }
                if (c.owner != null && !c.owner.equals(principal)) {
                    throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                            "Access Denied: the RC connection is bound to another principal");
                }
                if (c.busy) {
                    throw new S3Exception(RcConnectionRoutes.BUSY, 409,
                            "Another request is using this RC connection; one request at a time per connection");
                }
                c.owner = principal;
                c.busy = true;
                return c;
            }
        } finally {
            if (ended != null) {
                finish(ended, "found failed");
            }
        }
    }

    /** The request on {@code c} ended; a failed queue pair or a pending disconnect ends the connection. */
    void release(RcConnection c) {
        RcConnection ended = null;
        synchronized (this) {
            c.busy = false;
            c.lastUseNanos = System.nanoTime();
            if ((c.endRequested || !c.usable()) && !c.ended) {
                ended = remove(c);
            }
        }
        if (ended != null) {
            finish(ended, c.endRequested ? "disconnected" : "failed");
        }
    }

    /** Ends every connection on {@code t} (the transport went away). */
    public void endAllOn(Transport t) {
        List<RcConnection> gone = new ArrayList<>();
        synchronized (this) {
            for (RcConnection c : List.copyOf(connections.values())) {
                if (c.transport == t) {
                    if (c.busy) {
                        c.endRequested = true;
                    } else {
                        gone.add(remove(c));
                    }
                }
            }
        }
        gone.forEach(c -> finish(c, "its transport went away"));
    }

    private void reap() {
        List<RcConnection> gone = new ArrayList<>();
        long now = System.nanoTime();
        RcConnectionSettings s = settings;
        synchronized (this) {
            for (RcConnection c : List.copyOf(connections.values())) {
                if (c.busy) {
                    continue;
                }
                boolean idle = now - c.lastUseNanos > s.idleTimeout().toNanos();
                boolean unbound = c.owner == null && now - c.openedNanos > s.unboundTimeout().toNanos();
                if (idle || unbound || !c.usable()) {
                    gone.add(remove(c));
                }
            }
        }
        gone.forEach(c -> finish(c, "reaped"));
    }

    /** Caller holds the lock. */
    private RcConnection remove(RcConnection c) {
        connections.remove(c.id);
        c.ended = true;
        reserved--;
        perSource.computeIfPresent(c.source, (k, n) -> n <= 1 ? null : n - 1);
        return c;
    }

    private static void finish(RcConnection c, String why) {
        c.channel.close();
        LOG.debug("RC connection {} ended: {}", c, why);
    }

    @Override
    public void close() {
        List<RcConnection> gone = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (RcConnection c : List.copyOf(connections.values())) {
                gone.add(remove(c));
            }
        }
        reaper.shutdownNow();
        gone.forEach(c -> finish(c, "the gateway stopped"));
    }
}
