package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * Finding 2 of issue 12, as an attacker on the wire would try it: the handshake authenticates both ends over
 * the whole transcript. A relay that knows no key cannot take over a lane by forwarding a real agent's challenge
 * and a real dialer's answer; a dialed side that cannot prove the key gets no connection, so none of its
 * requests is served; and a party's own challenge reflected back at it through a dial it was tricked into buys
 * nothing. Each attacker is a raw socket speaking the wire format by hand.
 */
class MutualAuthenticationTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            TcpTransport.closeQuietly(resources.get(i));
        }
        resources.clear();
    }

    private <T extends AutoCloseable> T later(T t) {
        resources.add(t);
        return t;
    }

    private TcpTransport transport() throws Exception {
        return later(TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP));
    }

    private ServerSocketChannel listener() throws Exception {
        ServerSocketChannel ss = later(ServerSocketChannel.open());
        ss.bind(new InetSocketAddress("127.0.0.1", 0));
        return ss;
    }

    private static ChannelOptions shortConnect() {
        return new ChannelOptions(16, 16, 4, java.time.Duration.ofSeconds(3));
    }

    /** Copies one HELLO (fixed part, then the address part its family byte announces) from {@code in} to {@code out}. */
    private static ByteBuffer readHello(SocketChannel in) throws Exception {
        ByteBuffer fixed = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES);
        MemoryAgent.readFully(in, fixed);
        byte family = fixed.get(Wire.HELLO_FIXED_BYTES - 1);
        ByteBuffer rest = ByteBuffer.allocate((family == 4 ? 4 : 16) + 2 + 8);
        MemoryAgent.readFully(in, rest);
        ByteBuffer all = ByteBuffer.allocate(fixed.capacity() + rest.capacity());
        return all.put(fixed.flip()).put(rest.flip()).flip();
    }

    @Test
    void relayThatKnowsNoKeyCannotTakeOverALane() throws Exception {
        TcpTransport server = transport();
        TcpTransport client = transport();
        Channel lane = later(client.openChannel(shortConnect())); // the client agent's lane, waiting in INIT
        EndpointInfo.Tcp genuine = (EndpointInfo.Tcp) lane.localEndpoint();
        ServerSocketChannel relay = listener();

        // the relay forwards the real agent's challenge to the server and the server's answer to the agent
        CompletableFuture<Byte> agentsAnswer = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (SocketChannel fromServer = relay.accept();
                 SocketChannel toAgent = SocketChannel.open(client.agentAddress())) {
                ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
                MemoryAgent.readFully(toAgent, challenge);
                MemoryAgent.writeFully(fromServer, challenge.flip());
                MemoryAgent.writeFully(toAgent, readHello(fromServer));
                ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
                MemoryAgent.readFully(toAgent, reply);
                agentsAnswer.complete(reply.get(4));
            } catch (Exception e) {
                agentsAnswer.completeExceptionally(e);
            }
        });
        // the server was handed the relay's address with the lane's number and key (a forged descriptor)
        EndpointInfo.Tcp viaRelay = new EndpointInfo.Tcp((InetSocketAddress) relay.getLocalAddress(),
                genuine.channelId(), genuine.key());
        Channel serverSide = later(server.openChannel(shortConnect()));
        assertThrows(TransportException.class, () -> serverSide.connect(viaRelay));

        assertEquals(Wire.REPLY_AUTH_REFUSED, agentsAnswer.get(10, TimeUnit.SECONDS),
                "the agent refuses a forwarded answer: it names the relay as the agent");
        assertEquals(ChannelState.INIT, lane.state(), "the lane was not taken over");
        assertEquals(0, client.connectionCount());
        // and the lane still takes its real peer
        serverSide.close();
        Channel real = later(server.openChannel(shortConnect()));
        real.connect(genuine);
        assertEquals(ChannelState.CONNECTED, lane.state());
    }

    @Test
    void dialedSideThatCannotProveTheKeyGetsNoAccess() throws Exception {
        TcpTransport server = transport();
        MemorySegment memory = later(Arena.ofShared()).allocate(4096, 4096);
        memory.fill((byte) 0x5A);
        // the deprecated whole-region path, the worst case: the region's own key would open it to any channel
        @SuppressWarnings("deprecation")
        MemoryRegion exposed = later(server.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
        ServerSocketChannel impostor = listener();

        CompletableFuture<Boolean> cutOff = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (SocketChannel sc = impostor.accept()) {
                ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
                challenge.putInt(Wire.MAGIC).putShort(Wire.VERSION).put(new byte[Wire.NONCE_BYTES]).flip();
                MemoryAgent.writeFully(sc, challenge);
                readHello(sc);
                // "OK" with a proof it cannot have made, then at once a WRITE into the server's region
                ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES + Wire.MAC_BYTES);
                reply.putInt(Wire.MAGIC).put(Wire.REPLY_OK).put(new byte[Wire.MAC_BYTES]).flip();
                MemoryAgent.writeFully(sc, reply);
                ByteBuffer h = ByteBuffer.allocate(Wire.HEADER_BYTES);
                Wire.header(h, Wire.REQUEST, 0, 0, 0, 1, exposed.address(), 64, exposed.rkey(), 0);
                MemoryAgent.writeFully(sc, h);
                Wire.header(h, Wire.REQUEST_DATA, 0, 0, 0, 1, 0, 64, 0, 0);
                MemoryAgent.writeFully(sc, h);
                MemoryAgent.writeFully(sc, ByteBuffer.wrap(new byte[64]));
                cutOff.complete(sc.read(ByteBuffer.allocate(64)) < 0);
            } catch (java.io.IOException e) {
                cutOff.complete(true); // reset by the server: also cut off
            } catch (Exception e) {
                cutOff.completeExceptionally(e);
            }
        });
        Channel serverSide = later(server.openChannel(shortConnect()));
        byte[] someKey = new byte[32];
        TransportException e = assertThrows(TransportException.class, () -> serverSide.connect(
                new EndpointInfo.Tcp((InetSocketAddress) impostor.getLocalAddress(), 7, someKey)));
        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error(), e.getMessage());
        assertTrue(cutOff.get(10, TimeUnit.SECONDS), "the impostor's socket is closed");
        assertEquals(ChannelState.INIT, serverSide.state(), "a refused connect changes nothing");
        assertEquals(0, server.connectionCount(), "no connection, so no request of the impostor's was served");
        for (long i = 0; i < 4096; i++) {
            assertEquals((byte) 0x5A, memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }

    @Test
    void ownChallengeReflectedThroughATrickedDialFails() throws Exception {
        // two channels of one transport under one shared key (the cuObject shared-key mode): the attacker wants
        // into `victim` without knowing the key, using the transport's own dial as an oracle
        byte[] shared = new byte[32];
        java.util.Arrays.fill(shared, (byte) 3);
        TcpTransport server = transport();
        Channel victim = later(server.openChannel(shortConnect().withAccessKey(shared)));
        Channel dialer = later(server.openChannel(shortConnect().withAccessKey(shared)));
        ServerSocketChannel attacker = listener();

        CompletableFuture<Byte> verdict = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (SocketChannel toVictim = SocketChannel.open(server.agentAddress());
                 SocketChannel fromDialer = attacker.accept()) {
                // 1. the victim's agent challenges the attacker
                ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
                MemoryAgent.readFully(toVictim, challenge);
                // 2. the attacker reflects that very challenge at the transport's own dialer
                MemoryAgent.writeFully(fromDialer, challenge.flip());
                ByteBuffer hello = readHello(fromDialer);
                // 3. and hands the dialer's answer back, aimed at the victim channel
                hello.putLong(6, victim.id());
                MemoryAgent.writeFully(toVictim, hello);
                ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
                MemoryAgent.readFully(toVictim, reply);
                verdict.complete(reply.get(4));
            } catch (Exception e) {
                verdict.completeExceptionally(e);
            }
        });
        EndpointInfo.Tcp bait = new EndpointInfo.Tcp((InetSocketAddress) attacker.getLocalAddress(), victim.id(),
                shared);
        assertThrows(TransportException.class, () -> dialer.connect(bait));
        assertEquals(Wire.REPLY_AUTH_REFUSED, verdict.get(10, TimeUnit.SECONDS),
                "a dialer's proof names the end it dialed and its role: it opens nothing else");
        assertEquals(ChannelState.INIT, victim.state());
        assertEquals(0, server.connectionCount());
    }

    @Test
    void honestPeersStillConnectBothWays() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        Channel ca = later(a.openChannel(shortConnect()));
        Channel cb = later(b.openChannel(shortConnect()));
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            try {
                cb.connect(ca.localEndpoint());
            } catch (TransportException e) {
                throw new IllegalStateException(e);
            }
        });
        ca.connect(cb.localEndpoint());
        other.get(10, TimeUnit.SECONDS);
        assertEquals(ChannelState.CONNECTED, ca.state());
        assertEquals(ChannelState.CONNECTED, cb.state());
    }
}
