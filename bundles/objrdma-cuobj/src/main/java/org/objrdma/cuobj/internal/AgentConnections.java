package org.objrdma.cuobj.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

    private final int capacity;
    private final ChannelOptions options;
    private final LinkedHashMap<AgentTarget, Lease> leases = new LinkedHashMap<>(16, 0.75f, true);
    private boolean closed;

    public AgentConnections(int capacity, ChannelOptions options) {
        this.capacity = capacity;
        this.options = options;
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
        List<Lease> toClose = new ArrayList<>(1);
        synchronized (this) {
            if (closed) {
                throw new TransportException(TransportError.CLOSED, "the server's connections are closed");
            }
            lease = leases.get(target);
            if (lease != null && lease.dial.isDone() && !usable(lease)) {
                dropLocked(lease, toClose);
                lease = null;
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

    private static void closeAll(List<Lease> leases) {
        for (Lease l : leases) {
            Channel c = connected(l);
            if (c != null) {
                c.close();
            }
        }
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
    }
}
