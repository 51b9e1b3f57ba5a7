package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.objrdma.api.transport.EndpointInfo;

/**
 * A hand-driven peer for tests: speaks the wire protocol byte by byte so a test can stall, lie or stop at
 * any point a real transport never would.
 */
final class RawPeer implements AutoCloseable {
    final SocketChannel socket;

    private RawPeer(SocketChannel socket) {
        this.socket = socket;
    }

    /** Connects to {@code target}'s agent and runs the handshake claiming to be {@code claimed}; returns the reply code. */
    static RawPeer dial(EndpointInfo.Tcp target, byte[] key, PeerIdentity claimed, byte[] replyCode) throws IOException {
        SocketChannel sc = SocketChannel.open(target.address());
        ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
        MemoryAgent.readFully(sc, challenge);
        challenge.flip().position(6);
        byte[] nonce = new byte[Wire.NONCE_BYTES];
        challenge.get(nonce);
        byte[] dialerNonce = new byte[Wire.NONCE_BYTES];
        dialerNonce[0] = 7;
        PeerIdentity agent = new PeerIdentity(target.address(), target.channelId());
        MemoryAgent.writeFully(sc, hello(target.channelId(), dialerNonce,
                Wire.proof(key, Wire.ROLE_DIALER, nonce, dialerNonce, agent, claimed), claimed));
        ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
        MemoryAgent.readFully(sc, reply);
        replyCode[0] = reply.get(4);
        if (replyCode[0] == Wire.REPLY_OK) {
            MemoryAgent.readFully(sc, ByteBuffer.allocate(Wire.MAC_BYTES)); // the agent's proof
        }
        return new RawPeer(sc);
    }

    /** A HELLO frame with the given parts, as a dialer sends it. */
    static ByteBuffer hello(long targetChannel, byte[] dialerNonce, byte[] mac, PeerIdentity dialer) {
        byte[] addr = dialer.address().getAddress().getAddress();
        ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES + addr.length + 10);
        hello.putInt(Wire.MAGIC).putShort(Wire.VERSION).putLong(targetChannel).put(dialerNonce).put(mac)
                .put((byte) (addr.length == 4 ? 4 : 6)).put(addr)
                .putShort((short) dialer.address().getPort()).putLong(dialer.channelId()).flip();
        return hello;
    }

    static PeerIdentity someone() {
        return new PeerIdentity(new InetSocketAddress("127.0.0.1", 9), 4242);
    }

    void frame(byte type, int op, int status, long seq, long remoteAddress, long length, int rkey) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(Wire.HEADER_BYTES);
        Wire.header(h, type, op, status, 0, seq, remoteAddress, length, rkey, 0);
        MemoryAgent.writeFully(socket, h);
    }

    void bytes(int n, byte value) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            b.put(value);
        }
        MemoryAgent.writeFully(socket, b.flip());
    }

    /** Reads frames until an ACK arrives and returns its header; skips pings. */
    ByteBuffer awaitAck() throws IOException {
        while (true) {
            ByteBuffer h = ByteBuffer.allocate(Wire.HEADER_BYTES);
            MemoryAgent.readFully(socket, h);
            if (Wire.type(h) == Wire.ACK) {
                return h;
            }
            if (Wire.type(h) == Wire.REQUEST_DATA || Wire.type(h) == Wire.RESPONSE_DATA) {
                MemoryAgent.readFully(socket, ByteBuffer.allocate((int) Wire.length(h)));
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
