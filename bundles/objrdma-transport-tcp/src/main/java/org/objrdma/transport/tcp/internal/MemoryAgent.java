package org.objrdma.transport.tcp.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.transport.common.Closer;

/**
 * The listening side of a TCP transport: accepts connections, runs the handshake (challenge, HMAC of the
 * target channel's key, reply — see {@link Wire}) and hands authenticated sockets to their channel. Also
 * dials other agents for {@link TcpChannel#connect}. Nothing is read beyond the handshake, and no memory is
 * touched, before the key has been checked.
 *
 * <p>Each inbound handshake runs on its own virtual thread under a deadline
 * ({@code handshake.timeout.ms}): a silent or slow client costs a parked virtual thread, not a platform thread,
 * and never holds up the accept loop. What a flood can hold is bounded ({@link PeerLimits}): pending
 * handshakes in total and per source address, and inbound sockets in all; a socket beyond a bound is closed as
 * soon as it is accepted, so the descriptors a flood costs are bounded and the per-address bound keeps slots for
 * everyone else. Outbound dials are not counted.
 */
final class MemoryAgent implements AutoCloseable {

    /** What a dial produced: a connected, authenticated socket, or null when the dials crossed. */
    record DialResult(SocketChannel socket) {
    }

    /** Compared against when the target channel does not exist, so refusals take the same time. */
    private static final byte[] NO_SUCH_KEY = new byte[32];

    private final TcpTransport transport;
    private final ServerSocketChannel server;
    private final InetSocketAddress advertised;
    private final Thread acceptor;
    private final Set<SocketChannel> handshaking = ConcurrentHashMap.newKeySet();
    /** Pending handshakes per source address (max.pending.handshakes.per.address). */
    private final ConcurrentHashMap<InetAddress, Integer> pendingBySource = new ConcurrentHashMap<>();
    /** Inbound sockets held: pending handshakes plus authenticated connections not yet ended. */
    private final AtomicInteger inboundHeld = new AtomicInteger();
    private final AtomicLong turnedAway = new AtomicLong();
    private volatile long lastTurnedAwayLog;
    private final AtomicBoolean closed = new AtomicBoolean();

    MemoryAgent(TcpTransport transport) throws IOException {
        this.transport = transport;
        TcpSettings s = transport.settings();
        ServerSocketChannel ss = ServerSocketChannel.open();
        try {
            ss.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (s.receiveBuffer() > 0) {
                // set before bind so that the window scale offered in SYN-ACK covers it
                ss.setOption(StandardSocketOptions.SO_RCVBUF, s.receiveBuffer());
            }
            ss.bind(new InetSocketAddress(s.bindAddress(), s.port()), 128);
        } catch (IOException | RuntimeException e) {
            ss.close();
            throw e;
        }
        this.server = ss;
        this.advertised = s.advertisedSocketAddress(((InetSocketAddress) ss.getLocalAddress()).getPort());
        this.acceptor = Thread.ofPlatform().daemon().name(transport.threadPrefix() + "-agent").unstarted(this::acceptLoop);
    }

    void start() {
        acceptor.start();
    }

    /** The address peers dial: advertised address and the bound port. */
    InetSocketAddress address() {
        return advertised;
    }

    /** Applies the configured socket options to a new connection, before it connects where that matters. */
    void configure(SocketChannel sc) throws IOException {
        TcpSettings s = transport.settings();
        sc.setOption(StandardSocketOptions.TCP_NODELAY, s.noDelay());
        sc.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        if (s.sendBuffer() > 0) {
            sc.setOption(StandardSocketOptions.SO_SNDBUF, s.sendBuffer());
        }
        if (s.receiveBuffer() > 0) {
            sc.setOption(StandardSocketOptions.SO_RCVBUF, s.receiveBuffer());
        }
    }

    // ------------------------------------------------------------------ inbound

    private void acceptLoop() {
        while (!closed.get()) {
            SocketChannel sc;
            try {
                sc = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed.get()) {
                    return;
                }
                TcpTransport.LOG.warn("memory agent {}: accept failed: {}", advertised, e.toString());
                pause();
                continue;
            }
            InetAddress source = sourceOf(sc);
            if (source == null || !admit(source)) {
                TcpTransport.closeQuietly(sc);
                turnedAway(source);
                continue;
            }
            try {
                configure(sc);
                handshaking.add(sc);
                Thread.ofVirtual().name(transport.threadPrefix() + "-handshake").start(() -> handshake(sc, source));
            } catch (IOException | RuntimeException e) {
                handshaking.remove(sc);
                TcpTransport.closeQuietly(sc);
                release(source, true);
            }
        }
    }

    private static InetAddress sourceOf(SocketChannel sc) {
        try {
            return ((InetSocketAddress) sc.getRemoteAddress()).getAddress();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Takes a pending-handshake slot for {@code source} if every bound allows it. Accept thread only. */
    private boolean admit(InetAddress source) {
        PeerLimits l = transport.settings().limits();
        if (handshaking.size() >= l.maxPendingHandshakes() || inboundHeld.get() >= l.maxConnections()) {
            return false;
        }
        boolean[] ok = new boolean[1];
        pendingBySource.compute(source, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= l.maxPendingHandshakesPerSource()) {
                return n;
            }
            ok[0] = true;
            return now + 1;
        });
        if (ok[0]) {
            inboundHeld.incrementAndGet();
        }
        return ok[0];
    }

    /** Gives back the pending slot of {@code source}, and the socket's place unless a connection keeps it. */
    private void release(InetAddress source, boolean socketToo) {
        pendingBySource.computeIfPresent(source, (a, n) -> n <= 1 ? null : n - 1);
        if (socketToo) {
            inboundHeld.decrementAndGet();
        }
    }

    private void turnedAway(InetAddress source) {
        long n = turnedAway.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastTurnedAwayLog > TimeUnit.SECONDS.toNanos(10)) {
            lastTurnedAwayLog = now;
            TcpTransport.LOG.warn("memory agent {}: turned away a connection from {} ({} so far): pending handshakes "
                    + "{} in total, {} from that address, {} inbound sockets held", advertised, source, n,
                    handshaking.size(), source == null ? "?" : pendingBySource.getOrDefault(source, 0),
                    inboundHeld.get());
        }
    }

    /** Inbound sockets held now (pending and authenticated); for tests. */
    int inboundHeld() {
        return inboundHeld.get();
    }

    /** Pending handshakes now; for tests. */
    int pendingHandshakes() {
        return handshaking.size();
    }

    /** Connections turned away by a bound so far; for tests. */
    long turnedAwayCount() {
        return turnedAway.get();
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handshake(SocketChannel sc, InetAddress source) {
        ScheduledFuture<?> deadline = transport.schedule(() -> TcpTransport.closeQuietly(sc),
                transport.settings().handshakeTimeout());
        TcpConnection attached = null;
        boolean handedOver = false;
        try {
            byte[] agentNonce = new byte[Wire.NONCE_BYTES];
            transport.random().nextBytes(agentNonce);
            ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
            challenge.putInt(Wire.MAGIC).putShort(Wire.VERSION).put(agentNonce).flip();
            writeFully(sc, challenge);

            ByteBuffer fixed = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES);
            readFully(sc, fixed);
            fixed.flip();
            int magic = fixed.getInt();
            short version = fixed.getShort();
            long target = fixed.getLong();
            byte[] dialerNonce = new byte[Wire.NONCE_BYTES];
            fixed.get(dialerNonce);
            byte[] mac = new byte[Wire.MAC_BYTES];
            fixed.get(mac);
            byte family = fixed.get();
            if (magic != Wire.MAGIC || version != Wire.VERSION || (family != 4 && family != 6)) {
                reply(sc, Wire.REPLY_BAD_HELLO, null);
                TcpTransport.LOG.debug("memory agent {}: malformed hello from {}", advertised, remote(sc));
                return;
            }
            ByteBuffer rest = ByteBuffer.allocate((family == 4 ? 4 : 16) + 2 + 8);
            readFully(sc, rest);
            rest.flip();
            byte[] addr = new byte[family == 4 ? 4 : 16];
            rest.get(addr);
            int port = Short.toUnsignedInt(rest.getShort());
            long dialerChannel = rest.getLong();
            PeerIdentity dialer = new PeerIdentity(
                    new InetSocketAddress(InetAddress.getByAddress(addr), port), dialerChannel);
            PeerIdentity us = new PeerIdentity(advertised, target);

            TcpChannel channel = transport.channel(target);
            byte[] key = channel == null ? NO_SUCH_KEY : channel.key();
            byte[] expected = Wire.proof(key, Wire.ROLE_DIALER, agentNonce, dialerNonce, us, dialer);
            // constant time for equal lengths; a refusal says nothing about whether the channel exists
            if (!MessageDigest.isEqual(expected, mac) || channel == null) {
                reply(sc, Wire.REPLY_AUTH_REFUSED, null);
                transport.authenticationRefused(remote(sc), target);
                return;
            }
            TcpConnection[] slot = new TcpConnection[1];
            byte code = channel.acceptInbound(sc, dialer, slot);
            attached = slot[0];
            if (attached != null) {
                attached.onEnded(() -> inboundHeld.decrementAndGet());
                handedOver = true;
            }
            cancel(deadline);
            reply(sc, code, code == Wire.REPLY_OK
                    ? Wire.proof(key, Wire.ROLE_AGENT, agentNonce, dialerNonce, us, dialer) : null);
            if (attached != null) {
                handshaking.remove(sc);
                attached.start();
                attached = null;
                TcpTransport.LOG.debug("memory agent {}: channel {} connected by {}", advertised, target, dialer);
            }
        } catch (IOException e) {
            TcpTransport.LOG.debug("memory agent {}: handshake with {} failed: {}", advertised, remote(sc), e.toString());
            if (attached != null) {
                attached.abort(EndCause.PEER_VANISHED);
                attached = null;
            }
        } finally {
            cancel(deadline);
            if (handshaking.remove(sc)) {
                TcpTransport.closeQuietly(sc);
            }
            release(source, !handedOver);
        }
    }

    private static Object remote(SocketChannel sc) {
        try {
            return sc.getRemoteAddress();
        } catch (IOException e) {
            return "?";
        }
    }

    private static void reply(SocketChannel sc, byte code, byte[] proof) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Wire.REPLY_BYTES + (proof == null ? 0 : proof.length));
        b.putInt(Wire.MAGIC).put(code);
        if (proof != null) {
            b.put(proof);
        }
        writeFully(sc, b.flip());
    }

    // ------------------------------------------------------------------ outbound

    /**
     * Dials {@code target}'s agent as {@code self} and authenticates with the target's key, all before
     * {@code deadlineNanos}.
     *
     * @throws TransportException CONNECT_FAILED, AUTHENTICATION_FAILED or TIMEOUT
     */
    DialResult dial(EndpointInfo.Tcp target, PeerIdentity self, long deadlineNanos) throws TransportException {
        long pauseMillis = 5;
        while (true) {
            try {
                return dialOnce(target, self, deadlineNanos);
            } catch (TurnedAway e) {
                // the agent is at one of its bounds (a burst of dials, or a flood): back off and try again
                if (deadlineNanos - System.nanoTime() <= TimeUnit.MILLISECONDS.toNanos(pauseMillis)) {
                    throw new TransportException(TransportError.CONNECT_FAILED, "agent " + target.address()
                            + " kept turning the connection away (too many pending handshakes)");
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(pauseMillis);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new TransportException(TransportError.CONNECT_FAILED, "interrupted while connecting", ie);
                }
                pauseMillis = Math.min(100, pauseMillis * 2);
            }
        }
    }

    /** The agent closed the socket before its challenge: it is at a bound. */
    private static final class TurnedAway extends Exception {
        private static final long serialVersionUID = 1L;

        TurnedAway() {
            super(null, null, false, false);
        }
    }

    private DialResult dialOnce(EndpointInfo.Tcp target, PeerIdentity self, long deadlineNanos)
            throws TransportException, TurnedAway {
        InetSocketAddress where = target.address().isUnresolved()
                ? new InetSocketAddress(target.address().getHostString(), target.address().getPort())
                : target.address();
        if (where.isUnresolved()) {
            throw new TransportException(TransportError.CONNECT_FAILED, "cannot resolve " + target.address());
        }
        SocketChannel sc = null;
        ScheduledFuture<?> timer = null;
        AtomicBoolean timedOut = new AtomicBoolean();
        boolean ok = false;
        try {
            sc = SocketChannel.open();
            configure(sc);
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (leftMillis <= 0) {
                throw new TransportException(TransportError.TIMEOUT, "no time left to connect to " + where);
            }
            SocketChannel socket = sc;
            timer = transport.schedule(() -> {
                timedOut.set(true);
                TcpTransport.closeQuietly(socket);
            }, java.time.Duration.ofMillis(leftMillis));
            sc.socket().connect(where, (int) Math.min(Integer.MAX_VALUE, leftMillis));

            ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
            try {
                readFully(sc, challenge);
            } catch (EOFException | java.net.SocketException e) {
                if (challenge.position() == 0 && !timedOut.get()) {
                    throw new TurnedAway();
                }
                throw e;
            }
            challenge.flip();
            if (challenge.getInt() != Wire.MAGIC || challenge.getShort() != Wire.VERSION) {
                throw new TransportException(TransportError.CONNECT_FAILED, where + " is not an objrdma TCP agent");
            }
            byte[] agentNonce = new byte[Wire.NONCE_BYTES];
            challenge.get(agentNonce);
            byte[] dialerNonce = new byte[Wire.NONCE_BYTES];
            transport.random().nextBytes(dialerNonce);
            PeerIdentity agent = new PeerIdentity(where, target.channelId());

            byte[] selfAddr = self.address().getAddress().getAddress();
            ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES + selfAddr.length + 2 + 8);
            hello.putInt(Wire.MAGIC).putShort(Wire.VERSION).putLong(target.channelId()).put(dialerNonce)
                    .put(Wire.proof(target.key(), Wire.ROLE_DIALER, agentNonce, dialerNonce, agent, self))
                    .put((byte) (self.address().getAddress() instanceof Inet4Address ? 4 : 6))
                    .put(selfAddr).putShort((short) self.address().getPort()).putLong(self.channelId()).flip();
            writeFully(sc, hello);

            ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
            readFully(sc, reply);
            reply.flip();
            if (reply.getInt() != Wire.MAGIC) {
                throw new TransportException(TransportError.CONNECT_FAILED, where + " answered garbage");
            }
            byte code = reply.get();
            byte[] agentMac = null;
            if (code == Wire.REPLY_OK) {
                ByteBuffer proof = ByteBuffer.allocate(Wire.MAC_BYTES);
                readFully(sc, proof);
                agentMac = proof.array();
            }
            cancel(timer);
            if (timedOut.get()) {
                throw new TransportException(TransportError.TIMEOUT, "handshake with " + where + " timed out");
            }
            switch (code) {
                case Wire.REPLY_OK -> {
                    byte[] expected = Wire.proof(target.key(), Wire.ROLE_AGENT, agentNonce, dialerNonce, agent, self);
                    if (!MessageDigest.isEqual(expected, agentMac)) {
                        // whoever answered does not hold the key: it gets no connection, so no request of its is served
                        TcpTransport.LOG.warn("memory agent {}: {} accepted our handshake for channel {} but could "
                                + "not prove the access key; dropped", advertised, where, target.channelId());
                        throw new TransportException(TransportError.AUTHENTICATION_FAILED, "agent " + where
                                + " did not prove the access key of channel " + target.channelId());
                    }
                    ok = true;
                    return new DialResult(sc);
                }
                case Wire.REPLY_CROSSED -> {
                    return new DialResult(null);
                }
                case Wire.REPLY_AUTH_REFUSED -> throw new TransportException(TransportError.AUTHENTICATION_FAILED,
                        "agent " + where + " refused the access key for channel " + target.channelId());
                case Wire.REPLY_BUSY -> throw new TransportException(TransportError.CONNECT_FAILED,
                        "channel " + target.channelId() + " at " + where + " is connected to another peer or closing");
                default -> throw new TransportException(TransportError.CONNECT_FAILED,
                        "agent " + where + " refused the handshake (code " + code + ")");
            }
        } catch (SocketTimeoutException e) {
            throw new TransportException(TransportError.TIMEOUT, "connecting to " + where + " timed out", e);
        } catch (ConnectException e) {
            throw new TransportException(TransportError.CONNECT_FAILED, "cannot connect to " + where + ": "
                    + e.getMessage(), e);
        } catch (IOException e) {
            if (timedOut.get()) {
                throw new TransportException(TransportError.TIMEOUT, "connecting to " + where + " timed out", e);
            }
            throw new TransportException(TransportError.CONNECT_FAILED, "handshake with " + where + " failed: "
                    + e, e);
        } finally {
            cancel(timer);
            if (!ok && sc != null) {
                TcpTransport.closeQuietly(sc);
            }
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    static void readFully(SocketChannel sc, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (sc.read(b) < 0) {
                throw new EOFException("connection closed during the handshake");
            }
        }
    }

    static void writeFully(SocketChannel sc, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            sc.write(b);
        }
    }

    /** Stops accepting, drops handshakes in progress and waits for the accept thread. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Closer.closeAllQuietly(e -> TcpTransport.LOG.trace("memory agent {}: closing a socket failed", advertised, e),
                server, Closer.all(handshaking));
        try {
            acceptor.join(transport.settings().shutdownTimeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (acceptor.isAlive()) {
            TcpTransport.LOG.warn("memory agent {}: accept thread did not stop within {}", advertised,
                    transport.settings().shutdownTimeout());
        }
    }
}
