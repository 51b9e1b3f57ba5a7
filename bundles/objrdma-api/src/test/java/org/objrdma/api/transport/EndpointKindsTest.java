package org.objrdma.api.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The endpoint set is open: a kind the API does not know (here a DC target, defined by this test as a transport
 * bundle would) implements {@link EndpointInfo} without any change to the API, and consumers reach every kind through
 * the interface and the typed {@link EndpointInfo#as} — the sealed form of today's main cannot compile this class.
 */
class EndpointKindsTest {

    /** A DC target as a future transport might describe it. */
    record Dc(int dctn, Gid gid, int lid, long dcKey) implements EndpointInfo {
        @Override public String kind() { return "verbs-dc"; }
        @Override public long queueNumber() { return dctn; }
        @Override public long maxQueueNumber() { return 0xFF_FFFF; }
        @Override public Dc withQueue(long q, int psn) { return new Dc((int) q, gid, lid, dcKey); }
    }

    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_00ab_cdefL);

    @Test
    void aNewKindNeedsNoApiChange() {
        EndpointInfo dc = new Dc(7, GID, 1, 0xffeeddccL);
        assertEquals("verbs-dc", dc.kind());
        assertEquals(7, dc.queueNumber());
        assertEquals(new Dc(9, GID, 1, 0xffeeddccL), dc.withQueue(9, 0));
        assertEquals(Optional.empty(), dc.socketAddress());
        assertEquals(OptionalInt.empty(), dc.initialPsn());
        assertEquals(Optional.of(dc), dc.as(Dc.class));
        assertEquals(Optional.empty(), dc.as(EndpointInfo.Tcp.class));
    }

    @Test
    void theBuiltInKindsAnswerThroughTheInterface() {
        EndpointInfo tcp = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 4000), 3, new byte[16]);
        assertEquals(Optional.of(new InetSocketAddress("127.0.0.1", 4000)), tcp.socketAddress());
        assertEquals(3, tcp.queueNumber());
        assertEquals(0xFFFF_FFFFL, tcp.maxQueueNumber());
        assertEquals(new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 4000), 12, new byte[16]), tcp.withQueue(12, 5));
        assertThrows(IllegalArgumentException.class, () -> tcp.withQueue(1L << 32, 0));
        assertTrue(tcp.as(EndpointInfo.Tcp.class).isPresent());

        EndpointInfo verbs = new EndpointInfo.Verbs(0x10, 0x20, GID, 1, 1, Mtu.MTU_4096);
        assertEquals(OptionalInt.of(0x20), verbs.initialPsn());
        assertEquals(Optional.empty(), verbs.socketAddress());
        assertEquals(new EndpointInfo.Verbs(0x11, 0x22, GID, 1, 1, Mtu.MTU_4096), verbs.withQueue(0x11, 0x22));
        assertThrows(IllegalArgumentException.class, () -> verbs.withQueue(1 << 24, 1));
        assertEquals(0xFF_FFFF, verbs.maxQueueNumber());
    }
}
