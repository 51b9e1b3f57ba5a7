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
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * The listening side of a TCP transport: accepts connections, runs the handshake (challenge, HMAC of the
 * target channel's key, reply — see {@link Wire}) and hands authenticated sockets to their channel. Also
 * dials other agents for {@link TcpChannel#connect}. Nothing is read beyond the handshake, and no memory is
 * touched, before the key has been checked.
 *
 * <p>Each inbound handshake runs on its own virtual thread under a deadline
 * ({@code handshake.timeout.ms}): a silent or slow client costs a parked virtual thread, not a platform thread,
 * and never holds up the accept loop.
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
            try {
                configure(sc);
                handshaking.add(sc);
                Thread.ofVirtual().name(transport.threadPrefix() + "-handshake").start(() -> handshake(sc));
            } catch (IOException | RuntimeException e) {
                handshaking.remove(sc);
                TcpTransport.closeQuietly(sc);
            }
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handshake(SocketChannel sc) {
        ScheduledFuture<?> deadline = transport.schedule(() -> TcpTransport.closeQuietly(sc),
                transport.settings().handshakeTimeout());
        TcpConnection attached = null;
        try {
            byte[] nonce = new byte[Wire.NONCE_BYTES];
            transport.random().nextBytes(nonce);
            ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
            challenge.putInt(Wire.MAGIC).putShort(Wire.VERSION).put(nonce).flip();
            writeFully(sc, challenge);

            ByteBuffer fixed = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES);
            readFully(sc, fixed);
            fixed.flip();
            int magic = fixed.getInt();
            short version = fixed.getShort();
            long target = fixed.getLong();
            byte[] mac = new byte[Wire.MAC_BYTES];
            fixed.get(mac);
            byte family = fixed.get();
            if (magic != Wire.MAGIC || version != Wire.VERSION || (family != 4 && family != 6)) {
                reply(sc, Wire.REPLY_BAD_HELLO);
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

            TcpChannel channel = transport.channel(target);
            byte[] expected = Wire.mac(channel == null ? NO_SUCH_KEY : channel.key(), nonce, target);
            // constant time for equal lengths; a refusal says nothing about whether the channel exists
            if (!MessageDigest.isEqual(expected, mac) || channel == null) {
                reply(sc, Wire.REPLY_AUTH_REFUSED);
                transport.authenticationRefused(remote(sc), target);
                return;
            }
            PeerIdentity dialer = new PeerIdentity(
                    new InetSocketAddress(InetAddress.getByAddress(addr), port), dialerChannel);
            TcpConnection[] slot = new TcpConnection[1];
            byte code = channel.acceptInbound(sc, dialer, slot);
            attached = slot[0];
            cancel(deadline);
            reply(sc, code);
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
        }
    }

    private static Object remote(SocketChannel sc) {
        try {
            return sc.getRemoteAddress();
        } catch (IOException e) {
            return "?";
        }
    }

    private static void reply(SocketChannel sc, byte code) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Wire.REPLY_BYTES);
        b.putInt(Wire.MAGIC).put(code).flip();
        writeFully(sc, b);
    }

    // ------------------------------------------------------------------ outbound

    /**
     * Dials {@code target}'s agent as {@code self} and authenticates with the target's key, all before
     * {@code deadlineNanos}.
     *
     * @throws TransportException CONNECT_FAILED, AUTHENTICATION_FAILED or TIMEOUT
     */
    DialResult dial(EndpointInfo.Tcp target, PeerIdentity self, long deadlineNanos) throws TransportException {
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
            readFully(sc, challenge);
            challenge.flip();
            if (challenge.getInt() != Wire.MAGIC || challenge.getShort() != Wire.VERSION) {
                throw new TransportException(TransportError.CONNECT_FAILED, where + " is not an objrdma TCP agent");
            }
            byte[] nonce = new byte[Wire.NONCE_BYTES];
            challenge.get(nonce);

            byte[] selfAddr = self.address().getAddress().getAddress();
            ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES + selfAddr.length + 2 + 8);
            hello.putInt(Wire.MAGIC).putShort(Wire.VERSION).putLong(target.channelId())
                    .put(Wire.mac(target.key(), nonce, target.channelId()))
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
            cancel(timer);
            if (timedOut.get()) {
                throw new TransportException(TransportError.TIMEOUT, "handshake with " + where + " timed out");
            }
            switch (code) {
                case Wire.REPLY_OK -> {
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
        TcpTransport.closeQuietly(server);
        for (SocketChannel sc : handshaking) {
            TcpTransport.closeQuietly(sc);
        }
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
