package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * Fuzz targets (Jazzer) for the TCP transport's frame decoder and handshake, run against a live agent: a real
 * {@link TcpTransport} listening on loopback, reached through real sockets. Each input opens a fresh channel on
 * the agent with two grants — a read-write slice and a read-only slice of one region that also holds guard pages
 * — and a posted receive, then speaks to the agent:
 * <ul>
 *   <li>{@link #bytesAfterHandshake}: a real handshake for that channel, then the input as it is;</li>
 *   <li>{@link #framesAfterHandshake}: a real handshake, then the input read as frames whose rkey, address,
 *       length and type fields the input may point at the grants (a raw fuzzer would never guess an rkey);</li>
 *   <li>{@link #bytesBeforeHandshake}: the input instead of a HELLO (optionally after reading the challenge);</li>
 *   <li>{@link #helloFromPeer}: a HELLO built from the input, whose target channel and MAC the input may make
 *       real, so the code after the MAC check sees arbitrary claimed identities; then frames.</li>
 * </ul>
 * After each input, whatever it was: the agent ends the connection within {@link #DEADLINE_MS} of the peer's
 * end of stream (each input's time is bounded); the guard pages and the read-only slice are unchanged byte for
 * byte (only the read-write slice and the receive buffer may change); no pending handshake or inbound socket is
 * left behind; the channel count is back to where it was; and a well-behaved client on another, long-lived channel
 * still gets a WRITE and a READ through its own grant with the bytes intact.
 */
class TcpAgentFuzzTest {
    private static final int PAGE = 4096;
    /** Bound on every wait of one input: the agent reading our bytes, ending the connection, settling. */
    private static final long DEADLINE_MS = 3000;
    private static final Set<Access> RW = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    private static TcpTransport agent;
    private static TcpTransport client;
    private static Arena arena;
    /** guard | read-write slice | read-only slice | guard, registered local-only; grants open the slices. */
    private static MemoryRegion target;
    private static MemorySegment targetReference;
    private static MemoryRegion recvBuffer;
    /** The well-behaved client: a channel of {@link #client} connected to {@link #served} on the agent. */
    private static Channel served;
    private static Channel wellBehaved;
    private static MemoryGrant servedGrant;
    private static MemoryRegion wellBehavedBuffer;
    private static int baselineChannels;
    private static int baselineInbound;
    private static long round;

    @BeforeAll
    static void startAgent() throws Exception {
        // short waits keep each input fast: RNR for a SEND without receive, a HELLO that never completes
        agent = TcpTransport.start(TcpSettings.from(TcpSettings.configWith(Map.of("rnr.wait.ms", 20L,
                "handshake.timeout.ms", 300L, "region.close.grace.ms", 200L, "shutdown.timeout.ms", 2000L)), null),
                () -> Telemetry.NOOP);
        client = TcpTransport.start(TcpSettings.from(TcpSettings.configWith(Map.of()), null), () -> Telemetry.NOOP);
        arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(4 * PAGE, PAGE);
        for (long i = 0; i < memory.byteSize(); i++) {
            memory.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        targetReference = arena.allocate(4 * PAGE, PAGE).copyFrom(memory);
        target = agent.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        recvBuffer = agent.register(arena.allocate(PAGE, PAGE), EnumSet.of(Access.LOCAL_WRITE));

        MemoryRegion servedMemory = agent.register(arena.allocate(PAGE, PAGE), EnumSet.of(Access.LOCAL_WRITE));
        served = agent.openChannel(ChannelOptions.DEFAULT);
        servedGrant = served.grant(servedMemory, 0, PAGE, RW);
        wellBehaved = client.openChannel(ChannelOptions.DEFAULT);
        wellBehaved.connect(served.localEndpoint());
        wellBehavedBuffer = client.register(arena.allocate(2 * PAGE, PAGE), EnumSet.of(Access.LOCAL_WRITE));
        baselineChannels = agent.channelCount();
        waitUntil(() -> agent.agent().inboundHeld() == 1, "the well-behaved client's connection is held");
        baselineInbound = agent.agent().inboundHeld();
    }

    @AfterAll
    static void stopAgent() {
        TcpTransport.closeQuietly(client);
        TcpTransport.closeQuietly(agent);
        if (arena != null) {
            arena.close();
        }
    }

    /** One input's channel on the agent: its grants and a posted receive. */
    private record Lane(TcpChannel channel, MemoryGrant readWrite, MemoryGrant readOnly) {
        static Lane open() throws TransportException {
            TcpChannel c = (TcpChannel) agent.openChannel(ChannelOptions.DEFAULT);
            MemoryGrant rw = c.grant(target, PAGE, PAGE, RW);
            MemoryGrant ro = c.grant(target, 2 * PAGE, PAGE, EnumSet.of(Access.REMOTE_READ));
            c.post(WorkRequest.recv(1, new ScatterGatherEntry(recvBuffer, 0, 256)));
            return new Lane(c, rw, ro);
        }

        EndpointInfo.Tcp endpoint() {
            return (EndpointInfo.Tcp) channel.localEndpoint();
        }
    }

    @FuzzTest
    void bytesAfterHandshake(byte[] input) throws Exception {
        Lane lane = Lane.open();
        try {
            RawPeer peer = dialed(lane);
            converse(peer.socket, input);
        } finally {
            settle(lane);
        }
    }

    @FuzzTest
    void framesAfterHandshake(byte[] input) throws Exception {
        Lane lane = Lane.open();
        try {
            RawPeer peer = dialed(lane);
            converse(peer.socket, Frames.encode(input, lane.readWrite(), lane.readOnly()));
        } finally {
            settle(lane);
        }
    }

    /**
     * The input's first byte: bit 0 set = read the challenge before sending (else send at once, over it); the rest
     * goes where a HELLO belongs. After it, a real dialer must still be taken.
     */
    @FuzzTest
    void bytesBeforeHandshake(byte[] input) throws Exception {
        Lane lane = Lane.open();
        try {
            try (SocketChannel sc = SocketChannel.open(lane.endpoint().address())) {
                if (input.length > 0 && (input[0] & 1) != 0) {
                    MemoryAgent.readFully(sc, ByteBuffer.allocate(Wire.CHALLENGE_BYTES));
                }
                converse(sc, input.length == 0 ? input : java.util.Arrays.copyOfRange(input, 1, input.length));
            }
            assertEquals(ChannelState.INIT, lane.channel().state(), "garbage before a handshake touched the channel");
            dialed(lane).close(); // the agent still takes an honest dialer for the same channel
        } finally {
            settle(lane);
        }
    }

    /**
     * A HELLO from the input (see {@link Hello#encode}); with the real target channel, a correct MAC and a well-formed
     * HELLO the agent must answer OK, with a wrong MAC never; after the reply the rest of the input follows.
     */
    @FuzzTest
    void helloFromPeer(byte[] input) throws Exception {
        Lane lane = Lane.open();
        try {
            EndpointInfo.Tcp ep = lane.endpoint();
            try (SocketChannel sc = SocketChannel.open(ep.address())) {
                ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
                MemoryAgent.readFully(sc, challenge);
                byte[] agentNonce = new byte[Wire.NONCE_BYTES];
                challenge.flip().position(6);
                challenge.get(agentNonce);
                Hello hello = Hello.encode(input, ep, agentNonce);
                Deadline.write(sc, ByteBuffer.wrap(hello.bytes()));
                int code = Deadline.readReplyCode(sc);
                if (hello.mustBeAccepted()) {
                    assertEquals(Wire.REPLY_OK, code, "an honest HELLO claiming " + hello.claimed() + " was refused");
                }
                if (!hello.macIsRight()) {
                    assertNotEquals(Wire.REPLY_OK, code, "a HELLO with a wrong MAC was accepted");
                }
                if (code == Wire.REPLY_OK) {
                    MemoryAgent.readFully(sc, ByteBuffer.allocate(Wire.MAC_BYTES));
                }
                converse(sc, hello.rest());
            }
        } finally {
            settle(lane);
        }
    }

    private static RawPeer dialed(Lane lane) throws IOException {
        byte[] code = new byte[1];
        EndpointInfo.Tcp ep = lane.endpoint();
        RawPeer peer = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code);
        assertEquals(Wire.REPLY_OK, code[0], "an honest dialer was refused");
        return peer;
    }

    /**
     * Sends {@code bytes} while reading (and dropping) whatever the agent answers, half-closes, and requires the
     * agent to end the connection within the deadline. The socket is closed on return.
     */
    private static void converse(SocketChannel sc, byte[] bytes) throws Exception {
        try (sc) {
            Thread drain = Thread.ofVirtual().start(() -> {
                ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
                try {
                    while (sc.read(sink.clear()) >= 0) {
                        // answers (acknowledgements, READ responses, pings) are dropped
                    }
                } catch (IOException e) {
                    // reset or closed by us: the connection is over either way
                }
            });
            try {
                Deadline.write(sc, ByteBuffer.wrap(bytes));
                sc.shutdownOutput();
            } catch (IOException e) {
                // the agent cut the connection while we were sending: a legal answer to a protocol violation
            }
            drain.join(DEADLINE_MS);
            assertTrue(!drain.isAlive(), "the agent kept the connection open " + DEADLINE_MS
                    + " ms after the peer's end of stream");
        }
    }

    /** After each input: the channel closed, memory outside the grants unchanged, the agent serving. */
    private static void settle(Lane lane) throws Exception {
        lane.channel().close();
        MemorySegment memory = target.segment();
        long before = memory.asSlice(0, PAGE).mismatch(targetReference.asSlice(0, PAGE));
        long after = memory.asSlice(2 * PAGE, 2 * PAGE).mismatch(targetReference.asSlice(2 * PAGE, 2 * PAGE));
        memory.copyFrom(targetReference); // the next input starts alike, even after a finding
        assertEquals(-1, before, "the guard page before the grants changed at offset " + before);
        assertEquals(-1, after, "the read-only slice or the guard page after it changed at offset "
                + (after < 0 ? after : 2 * PAGE + after));
        waitUntil(() -> agent.agent().pendingHandshakes() == 0, "no pending handshake is left");
        waitUntil(() -> agent.agent().inboundHeld() == baselineInbound, "no inbound socket is left");
        assertEquals(baselineChannels, agent.channelCount(), "the input's channel is gone");
        wellBehavedRoundTrip();
    }

    /** The long-lived client WRITEs a fresh pattern through its grant and READs it back. */
    private static void wellBehavedRoundTrip() throws Exception {
        round++;
        MemorySegment buf = wellBehavedBuffer.segment();
        buf.asSlice(0, 64).fill((byte) round);
        buf.asSlice(PAGE, 64).fill((byte) 0);
        assertEquals(ChannelState.CONNECTED, wellBehaved.state(), "the well-behaved client's channel");
        wellBehaved.post(WorkRequest.write(2 * round, new ScatterGatherEntry(wellBehavedBuffer, 0, 64),
                servedGrant.address(), servedGrant.rkey()));
        assertEquals(WcStatus.SUCCESS, await(wellBehaved).status(), "the well-behaved client's WRITE");
        wellBehaved.post(WorkRequest.read(2 * round + 1, new ScatterGatherEntry(wellBehavedBuffer, PAGE, 64),
                servedGrant.address(), servedGrant.rkey()));
        assertEquals(WcStatus.SUCCESS, await(wellBehaved).status(), "the well-behaved client's READ");
        assertEquals(-1, buf.asSlice(0, 64).mismatch(buf.asSlice(PAGE, 64)), "the bytes read back differ");
    }

    private static Completion await(Channel c) throws InterruptedException {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (c.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + DEADLINE_MS + " ms on " + c);
            }
            TimeUnit.MICROSECONDS.sleep(50);
        }
        return out[0];
    }

    private static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + DEADLINE_MS + " ms: " + what);
            }
            TimeUnit.MICROSECONDS.sleep(200);
        }
    }

    /** Socket I/O that gives up (closing the socket) after the deadline. */
    static final class Deadline {
        private Deadline() {
        }

        static void write(SocketChannel sc, ByteBuffer b) throws IOException {
            var watchdog = agent.schedule(() -> TcpTransport.closeQuietly(sc),
                    java.time.Duration.ofMillis(DEADLINE_MS));
            try {
                MemoryAgent.writeFully(sc, b);
            } finally {
                watchdog.cancel(false);
            }
            if (!sc.isOpen()) {
                throw new AssertionError("the agent stopped reading for " + DEADLINE_MS + " ms");
            }
        }

        /** The reply's code byte, or -1 if the agent closed the connection instead of replying. */
        static int readReplyCode(SocketChannel sc) throws IOException {
            var watchdog = agent.schedule(() -> TcpTransport.closeQuietly(sc),
                    java.time.Duration.ofMillis(DEADLINE_MS));
            ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
            try {
                MemoryAgent.readFully(sc, reply);
            } catch (IOException e) {
                assertTrue(sc.isOpen(), "no reply to a HELLO within " + DEADLINE_MS + " ms");
                return -1;
            } finally {
                watchdog.cancel(false);
            }
            assertEquals(Wire.MAGIC, reply.getInt(0), "reply magic");
            int code = reply.get(4);
            assertTrue(code >= Wire.REPLY_OK && code <= Wire.REPLY_BAD_HELLO, "unknown reply code " + code);
            return code;
        }
    }

    /**
     * The frame form of an input: records of one control byte and a 40-byte header (then, for the payload types,
     * as many payload bytes as the header's length asks and the input still holds); a shorter tail goes out raw.
     * Control bits: 0 = rkey of the read-write grant, 1 = rkey of the read-only grant (bit 0 wins), 2 = remote
     * address = that grant's address + the header's address field as a signed 16-bit offset, 3 = length = the
     * header's low 13 bits, 4 = frame type = 1 + (bits 5..7 mod 5) — a valid type.
     */
    static final class Frames {
        private Frames() {
        }

        static byte[] encode(byte[] in, MemoryGrant rw, MemoryGrant ro) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + 64);
            int i = 0;
            while (i < in.length) {
                int ctl = in[i++] & 0xFF;
                if (in.length - i < Wire.HEADER_BYTES) {
                    out.write(in, i, in.length - i);
                    break;
                }
                ByteBuffer h = ByteBuffer.allocate(Wire.HEADER_BYTES).put(in, i, Wire.HEADER_BYTES).flip();
                i += Wire.HEADER_BYTES;
                MemoryGrant g = (ctl & 1) != 0 ? rw : (ctl & 2) != 0 ? ro : null;
                if (g != null) {
                    h.putInt(32, g.rkey());
                }
                if ((ctl & 4) != 0) {
                    long base = g != null ? g.address() : rw.address();
                    h.putLong(16, base + (short) h.getLong(16));
                }
                if ((ctl & 8) != 0) {
                    h.putLong(24, h.getLong(24) & 0x1FFF);
                }
                if ((ctl & 16) != 0) {
                    h.put(0, (byte) (1 + ((ctl >>> 5) % 5)));
                }
                out.write(h.array(), 0, Wire.HEADER_BYTES);
                byte type = h.get(0);
                if (type == Wire.REQUEST_DATA || type == Wire.RESPONSE_DATA) {
                    long want = h.getLong(24);
                    int n = (int) Math.max(0, Math.min(want, in.length - i));
                    out.write(in, i, n);
                    i += n;
                }
            }
            return out.toByteArray();
        }
    }

    /**
     * A HELLO built from an input. Byte 0: bit 0 = target the lane's real channel (else the 8 bytes given), bit 1 =
     * the correct MAC for what the HELLO claims (else the 32 bytes given), bit 2 = magic and version as given (else
     * the right ones). Then, in wire order and taken from the input (zeros when it runs out): magic 4, version 2,
     * target channel 8, dialer nonce 32, MAC 32, family 1, address 4 (family 4) or 16 (any other family), port 2,
     * dialer channel 8. The rest of the input follows the reply.
     */
    record Hello(byte[] bytes, byte[] rest, boolean macIsRight, boolean mustBeAccepted, PeerIdentity claimed) {
        static Hello encode(byte[] in, EndpointInfo.Tcp agentEndpoint, byte[] agentNonce) {
            ByteBuffer src = ByteBuffer.wrap(in);
            int flags = take(src, 1).get() & 0xFF;
            boolean realTarget = (flags & 1) != 0;
            boolean realMac = (flags & 2) != 0;
            boolean givenMagic = (flags & 4) != 0;
            int magic = take(src, 4).getInt();
            short version = take(src, 2).getShort();
            long givenTarget = take(src, 8).getLong();
            byte[] nonce = new byte[Wire.NONCE_BYTES];
            take(src, Wire.NONCE_BYTES).get(nonce);
            byte[] givenMac = new byte[Wire.MAC_BYTES];
            take(src, Wire.MAC_BYTES).get(givenMac);
            byte family = take(src, 1).get();
            byte[] address = new byte[family == 4 ? 4 : 16];
            take(src, address.length).get(address);
            int port = Short.toUnsignedInt(take(src, 2).getShort());
            long dialerChannel = take(src, 8).getLong();
            byte[] rest = new byte[src.remaining()];
            src.get(rest);

            if (!givenMagic) {
                magic = Wire.MAGIC;
                version = Wire.VERSION;
            }
            long targetChannel = realTarget ? agentEndpoint.channelId() : givenTarget;
            PeerIdentity claimed = new PeerIdentity(new InetSocketAddress(inet(address), port), dialerChannel);
            PeerIdentity agentSide = new PeerIdentity(agentEndpoint.address(), targetChannel);
            byte[] right = Wire.proof(agentEndpoint.key(), Wire.ROLE_DIALER, agentNonce, nonce, agentSide, claimed);
            byte[] mac = realMac ? right : givenMac;
            boolean wellFormed = magic == Wire.MAGIC && version == Wire.VERSION && (family == 4 || family == 6);
            boolean targetsLane = targetChannel == agentEndpoint.channelId();
            boolean macRight = targetsLane && java.security.MessageDigest.isEqual(mac, right);

            ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_FIXED_BYTES + address.length + 2 + 8);
            hello.putInt(magic).putShort(version).putLong(targetChannel).put(nonce).put(mac).put(family)
                    .put(address).putShort((short) port).putLong(dialerChannel);
            return new Hello(hello.array(), rest, macRight, macRight && wellFormed, claimed);
        }

        private static ByteBuffer take(ByteBuffer src, int n) {
            ByteBuffer b = ByteBuffer.allocate(n);
            int k = Math.min(n, src.remaining());
            b.put(0, src, src.position(), k);
            src.position(src.position() + k);
            return b;
        }

        private static InetAddress inet(byte[] raw) {
            try {
                return InetAddress.getByAddress(raw);
            } catch (UnknownHostException e) {
                throw new IllegalStateException("4 or 16 bytes always form an address", e);
            }
        }
    }
}
