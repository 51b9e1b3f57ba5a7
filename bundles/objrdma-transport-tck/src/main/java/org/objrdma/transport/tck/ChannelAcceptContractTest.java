package org.objrdma.transport.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * The {@link ChannelOptions#accessKey()} and inbound-accept parts of the {@link Channel} contract, for every
 * transport. Which half applies is decided by what the transport declares, so the declaration is checked too:
 * <ul>
 *   <li>a transport that serves {@link Transport#FLOW_AGENT_ONE_SIDED} (TCP) puts a given access key in the
 *       channel's endpoint, and a channel of it in INIT accepts exactly one dialer presenting that key — it becomes
 *       CONNECTED without calling {@code connect}, and the dialer's one-sided requests reach its memory; a wrong key
 *       is refused with AUTHENTICATION_FAILED before any memory is touched, a second dialer with CONNECT_FAILED;</li>
 *   <li>any other transport (verbs RC) refuses a given access key at {@link Transport#openChannel} with
 *       INVALID_ARGUMENT (it has no handshake to enforce it), and a channel in INIT accepts no dialer: the dialer's
 *       requests fail with a named status and the memory stays untouched, the channel stays in INIT.</li>
 * </ul>
 * A transport module extends this class in its tests with the transports to run against.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ChannelAcceptContractTest {
    private static final int SIZE = 4096;

    /** Gives the transports under test (the dialer is the requester); called once per test class. */
    protected abstract TransportContractTest.TransportPair openTransports() throws Exception;

    /** How long a test waits for a completion or a state. */
    protected Duration timeout() {
        return Duration.ofSeconds(30);
    }

    private TransportContractTest.TransportPair transports;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
    private Arena arena;

    @BeforeAll
    final void open() throws Exception {
        transports = openTransports();
        arena = Arena.ofShared();
    }

    @AfterEach
    final void closeChannels() {
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @AfterAll
    final void close() throws Exception {
        arena.close();
        transports.cleanup().close();
    }

    private Transport acceptor() {
        return transports.responder();
    }

    private Transport dialer() {
        return transports.requester();
    }

    private boolean acceptsDialers() {
        return acceptor().flows().contains(Transport.FLOW_AGENT_ONE_SIDED);
    }

    private <T extends AutoCloseable> T later(T c) {
        toClose.push(c);
        return c;
    }

    private static byte[] key(int seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 31 + i);
        }
        return k;
    }

    /** A registered, remotely writable buffer of zeros on the acceptor. */
    private MemoryRegion target() throws TransportException {
        MemorySegment s = arena.allocate(SIZE, 4096);
        return later(acceptor().register(s, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
    }

    /** One signaled WRITE of {@code SIZE} bytes of 0x5A from the dialer's channel into {@code target}. */
    private BatchResult write(Channel dialing, MemoryRegion target) throws Exception {
        MemorySegment src = arena.allocate(SIZE, 4096);
        src.fill((byte) 0x5A);
        MemoryRegion local = later(dialer().register(src, EnumSet.of(Access.LOCAL_WRITE)));
        WorkRequest wr = new WorkRequest(1, Opcode.WRITE, List.of(new ScatterGatherEntry(local, 0, SIZE)),
                target.address(), target.rkey(), 0, true);
        return dialing.submit(List.of(wr), timeout()).get(timeout().toMillis() + 5_000, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void awaitState(Channel c, ChannelState s) throws InterruptedException {
        long deadline = System.nanoTime() + timeout().toNanos();
        while (c.state() != s && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(s, c.state());
    }

    @Test
    void theDeclaredFlowsMatchTheEndpointKind() {
        assertFalse(acceptor().flows().isEmpty(), "a transport declares the flows it serves");
        assertTrue(acceptor().flows().stream().allMatch(f -> !f.isBlank()));
        EndpointInfo e = assertDoesNotThrowOpen(ChannelOptions.DEFAULT).localEndpoint();
        assertEquals(acceptor().endpointKind(), e.kind());
    }

    private Channel assertDoesNotThrowOpen(ChannelOptions o) {
        try {
            return later(acceptor().openChannel(o));
        } catch (TransportException e) {
            throw new AssertionError("openChannel(" + o + ") failed", e);
        }
    }

    @Test
    void aGivenAccessKeyIsTheChannelsOrIsRefused() throws Exception {
        byte[] k = key(1);
        ChannelOptions keyed = ChannelOptions.DEFAULT.withAccessKey(k);
        if (acceptsDialers()) {
            Channel c = later(acceptor().openChannel(keyed));
            EndpointInfo.Tcp e = c.localEndpoint().as(EndpointInfo.Tcp.class).orElseThrow();
            assertArrayEquals(k, e.key(), "the endpoint carries the given key");
            Channel random = later(acceptor().openChannel(ChannelOptions.DEFAULT));
            byte[] drawn = random.localEndpoint().as(EndpointInfo.Tcp.class).orElseThrow().key();
            assertFalse(java.util.Arrays.equals(k, drawn), "no key given: the transport draws one");
        } else {
            TransportException e = assertThrows(TransportException.class, () -> later(acceptor().openChannel(keyed)));
            assertEquals(TransportError.INVALID_ARGUMENT, e.error());
            assertTrue(e.getMessage().contains("access key"), e.getMessage());
        }
    }

    @Test
    void aChannelInInitAcceptsOneDialerWithItsKey() throws Exception {
        Assumptions.assumeTrue(acceptsDialers(), "the transport does not serve agent-one-sided: the other half applies");
        Channel accepting = later(acceptor().openChannel(ChannelOptions.DEFAULT.withAccessKey(key(2))));
        MemoryRegion target = target();
        Channel dialing = later(dialer().openChannel(ChannelOptions.DEFAULT));
        dialing.connect(accepting.localEndpoint());
        assertEquals(ChannelState.CONNECTED, dialing.state());
        awaitState(accepting, ChannelState.CONNECTED);
        assertNull(accepting.remoteEndpoint(), "the acceptor did not connect: it names no remote endpoint");
        BatchResult r = write(dialing, target);
        assertTrue(r.isSuccess(), r.toString());
        assertEquals(0x5A5A5A5A, target.segment().get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, SIZE - 4));

        Channel second = later(dialer().openChannel(ChannelOptions.DEFAULT));
        TransportException busy = assertThrows(TransportException.class, () -> second.connect(accepting.localEndpoint()));
        assertEquals(TransportError.CONNECT_FAILED, busy.error(), "one dialer per channel");
        assertEquals(ChannelState.INIT, second.state(), "a refused connect changes nothing");
    }

    @Test
    void aDialerWithAnotherKeyIsRefusedBeforeAnyMemoryIsTouched() throws Exception {
        Assumptions.assumeTrue(acceptsDialers(), "the transport does not serve agent-one-sided: the other half applies");
        Channel accepting = later(acceptor().openChannel(ChannelOptions.DEFAULT.withAccessKey(key(3))));
        EndpointInfo.Tcp genuine = accepting.localEndpoint().as(EndpointInfo.Tcp.class).orElseThrow();
        EndpointInfo forged = new EndpointInfo.Tcp(genuine.address(), genuine.channelId(), key(4));
        Channel dialing = later(dialer().openChannel(ChannelOptions.DEFAULT));
        TransportException e = assertThrows(TransportException.class, () -> dialing.connect(forged));
        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error());
        assertEquals(ChannelState.INIT, accepting.state(), "still waiting for its dialer");
        Channel rightful = later(dialer().openChannel(ChannelOptions.DEFAULT));
        rightful.connect(genuine);
        awaitState(accepting, ChannelState.CONNECTED);
    }

    @Test
    void aChannelInInitAcceptsNoDialer() throws Exception {
        Assumptions.assumeFalse(acceptsDialers(), "the transport serves agent-one-sided: the accepting half applies");
        Channel waiting = later(acceptor().openChannel(ChannelOptions.DEFAULT));
        MemoryRegion target = target();
        Channel dialing = later(dialer().openChannel(ChannelOptions.DEFAULT));
        dialing.connect(waiting.localEndpoint()); // RC: connecting is local, the peer must connect too
        BatchResult r = write(dialing, target);
        assertFalse(r.isSuccess(), "a WRITE to a channel that never connected must not succeed: " + r);
        assertNotEquals(WcStatus.SUCCESS, r.firstFailure().map(c -> c.status()).orElse(WcStatus.SUCCESS));
        assertEquals(ChannelState.INIT, waiting.state(), "the channel in INIT was not connected by the dialer");
        assertTrue(target.segment().asByteBuffer().equals(java.nio.ByteBuffer.allocate(SIZE)), "memory untouched");
    }
}
