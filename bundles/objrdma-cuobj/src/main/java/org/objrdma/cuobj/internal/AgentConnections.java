package org.objrdma.cuobj.internal;

import org.objrdma.transport.common.Closer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;

/**
 * The server's connections to client memory agents, shared by all facade channels: one transport channel per
 * client agent channel, dialed on first use and kept (a client agent channel accepts exactly one connection,
 * so two facade channels serving the same client must share it; transport channels allow {@code submit} from
 * any thread).
 *
 * <p>Bounded: beyond {@code capacity} the least recently used connection is dropped, closed once no transfer
 * uses it any more. A connection found in ERROR or CLOSED is dropped and redialed (which fails if the client
 * channel ended: a client channel accepts one connection in its life). Concurrent first users of a target wait
 * for one dial. {@link #close()} closes everything.
 *
 * <p><b>Eviction.</b> A kept connection whose channel failed or whose peer went away (a client process that
 * exited: its agent's socket closed, the channel went to ERROR) is evicted without waiting for another transfer
 * to the same target, which never comes: a sweeper (one virtual thread per instance, every
 * {@link #EVICTION_PERIOD}) drops every kept connection that is no longer CONNECTED and closes it once no transfer
 * uses it, so it leaves the transport's channel list ({@code rdma:channels}). Every eviction, by the sweeper or
 * found on acquire, counts {@link Counter#CUOBJ_CONNECTIONS_EVICTED}.
 */
public final class AgentConnections implements AutoCloseable {

    /** One cached connection; {@link #release()} after every {@link #acquire}. */
    public static final class Lease {
        private final AgentConnections owner;
        private final AgentTarget target;
        private final CompletableFuture<Channel> dial = new CompletableFuture<>();
        private int users;            // guarded by owner
        private boolean dropped;      // guarded by owner

        private Lease(AgentConnections owner, AgentTarget target) {
            this.owner = owner;
            this.target = target;
        }

        /** The connected channel (after a successful {@link #acquire}). */
        public Channel channel() {
            return connected(this);
        }

        /** Hands the connection back; closes it if it was dropped meanwhile and this was its last user. */
        public void release() {
            owner.release(this);
        }

        /** Drops the connection (e.g. after a failed transfer): later acquires dial anew. */
        public void drop() {
            owner.drop(this);
        }
    }

    /** How often kept connections are checked for a failed channel or a peer that went away. */
    public static final Duration EVICTION_PERIOD = Duration.ofSeconds(1);

    private final int capacity;
    private final ChannelOptions options;
    private final Supplier<Telemetry> telemetry;
    private final LinkedHashMap<AgentTarget, Lease> leases = new LinkedHashMap<>(16, 0.75f, true);
    private final Thread sweeper;
    private boolean closed;

    /** Connections without telemetry (evictions are not counted). */
    public AgentConnections(int capacity, ChannelOptions options) {
        this(capacity, options, () -> Telemetry.NOOP);
    }

    /** Connections counting evictions in {@code telemetry} (read on every count; may answer null). */
    public AgentConnections(int capacity, ChannelOptions options, Supplier<Telemetry> telemetry) {
        this.capacity = capacity;
        this.options = options;
        this.telemetry = telemetry;
        this.sweeper = Thread.ofVirtual().name("objrdma-cuobj-evictor").unstarted(this::sweepUntilClosed);
        sweeper.start();
    }

    private void sweepUntilClosed() {
        while (true) {
            try {
                Thread.sleep(EVICTION_PERIOD);
            } catch (InterruptedException e) {
                return; // close()
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            evictBroken();
        }
    }

    /**
     * Drops every kept connection whose channel is no longer CONNECTED (failed, or its peer went away), closing
     * those no transfer uses now (the others close at their last release). Returns how many were evicted.
     */
    public int evictBroken() {
        List<Lease> toClose = new ArrayList<>();
        int evicted = 0;
        synchronized (this) {
            for (Lease l : new ArrayList<>(leases.values())) {
                if (l.dial.isDone() && !usable(l)) {
                    dropLocked(l, toClose);
                    evicted++;
                }
            }
        }
        closeAll(toClose);
        counted(evicted);
        return evicted;
    }

    private void counted(int evictions) {
        Telemetry t = evictions == 0 ? null : telemetry.get();
        for (int i = 0; t != null && i < evictions; i++) {
            t.increment(Counter.CUOBJ_CONNECTIONS_EVICTED);
        }
    }

    /**
     * The connection to {@code target}, dialing {@code endpoint.get()} if there is none yet (the endpoint is built
     * only then: a cached lookup allocates no address); the caller {@link Lease#release() releases} it when the
     * transfer ended.
     *
     * @throws TransportException what opening or connecting a channel throws (RESOURCE_EXHAUSTED,
     *         CONNECT_FAILED, AUTHENTICATION_FAILED, TIMEOUT, UNAVAILABLE), CLOSED after {@link #close()}
     */
    public Lease acquire(AgentTarget target, Supplier<EndpointInfo.Tcp> endpoint) throws TransportException {
        Lease lease;
        boolean dialer = false;
        int evicted = 0;
        List<Lease> toClose = new ArrayList<>(1);
        synchronized (this) {
            if (closed) {
                throw new TransportException(TransportError.CLOSED, "the server's connections are closed");
            }
            lease = leases.get(target);
            if (lease != null && lease.dial.isDone() && !usable(lease)) {
                dropLocked(lease, toClose);
                lease = null;
                evicted = 1;
            }
            if (lease == null) {
                lease = new Lease(this, target);
                leases.put(target, lease);
                dialer = true;
                evictLocked(toClose);
            }
            lease.users++;
        }
        closeAll(toClose);
        counted(evicted);
        if (dialer) {
            dial(lease, endpoint.get());
        }
        try {
            lease.dial.get(options.connectTimeout().toMillis() + 1_000, TimeUnit.MILLISECONDS);
            return lease;
        } catch (ExecutionException e) {
            release(lease);
            if (e.getCause() instanceof TransportException te) {
                throw te;
            }
            throw new TransportException(TransportError.IO, "connecting to " + target + " failed", e.getCause());
        } catch (TimeoutException e) {
            release(lease);
            throw new TransportException(TransportError.TIMEOUT, "connecting to " + target + " took too long");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            release(lease);
            throw new TransportException(TransportError.CONNECT_FAILED, "interrupted while connecting", e);
        }
    }

    private void dial(Lease lease, EndpointInfo.Tcp endpoint) {
        Channel c = null;
        try {
            c = lease.target.transport().openChannel(options);
            c.connect(endpoint);
            lease.dial.complete(c);
        } catch (TransportException | RuntimeException e) {
            if (c != null) {
                c.close();
            }
            synchronized (this) {
                if (leases.get(lease.target) == lease) {
                    leases.remove(lease.target);
                }
                lease.dropped = true;
            }
            lease.dial.completeExceptionally(e);
        }
    }

    /** The channel of a dial that succeeded, or null (still dialing, or failed). */
    private static Channel connected(Lease lease) {
        CompletableFuture<Channel> d = lease.dial;
        return d.isDone() && !d.isCompletedExceptionally() ? d.join() : null;
    }

    private static boolean usable(Lease lease) {
        Channel c = connected(lease);
        if (c == null) {
            return false; // the dial failed
        }
        ChannelState s = c.state();
        return s == ChannelState.CONNECTED;
    }

    private void evictLocked(List<Lease> toClose) {
        Iterator<Map.Entry<AgentTarget, Lease>> it = leases.entrySet().iterator();
        while (leases.size() > capacity && it.hasNext()) {
            Lease eldest = it.next().getValue();
            it.remove();
            eldest.dropped = true;
            if (eldest.users == 0) {
                toClose.add(eldest);
            }
        }
    }

    private void dropLocked(Lease lease, List<Lease> toClose) {
        if (leases.get(lease.target) == lease) {
            leases.remove(lease.target);
        }
        if (!lease.dropped) {
            lease.dropped = true;
            if (lease.users == 0) {
                toClose.add(lease);
            }
        }
    }

    private void drop(Lease lease) {
        List<Lease> toClose = new ArrayList<>(1);
        synchronized (this) {
            dropLocked(lease, toClose);
        }
        closeAll(toClose);
    }

    private void release(Lease lease) {
        boolean close;
        synchronized (this) {
            lease.users--;
            close = lease.dropped && lease.users == 0;
        }
        if (close) {
            closeAll(List.of(lease));
        }
    }

    /** Closes the channel of every lease, each even when one before it throws (thrown afterwards). */
    private static void closeAll(List<Lease> leases) {
        Closer.closeAll(leases.stream().map(AgentConnections::connected).toList());
    }

    /** Drops every connection on a transport other than {@code current} (the bound transport was replaced). */
    public void retainOnly(Object current) {
        List<Lease> toClose = new ArrayList<>();
        synchronized (this) {
            for (Lease l : new ArrayList<>(leases.values())) {
                if (l.target.transport() != current) {
                    dropLocked(l, toClose);
                }
            }
        }
        closeAll(toClose);
    }

    /** Connections cached now (dialing included). */
    public synchronized int size() {
        return leases.size();
    }

    /** Closes every connection, in use or not (their transfers flush); later acquires fail CLOSED. Idempotent. */
    @Override
    public void close() {
        List<Lease> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(leases.values());
            leases.clear();
            all.forEach(l -> l.dropped = true);
        }
        closeAll(all);
        sweeper.interrupt();
    }
}
