package org.objrdma.api.transport;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransportValuesTest {

    /** A region over a segment, as a unit-test fake: the real ones come from transports. */
    static MemoryRegion fakeRegion(MemorySegment seg) {
        return new MemoryRegion() {
            @Override public MemorySegment segment() { return seg; }
            @Override public long address() { return seg.address(); }
            @Override public long length() { return seg.byteSize(); }
            @Override public int lkey() { return 1; }
            @Override public int rkey() { return 2; }
            @Override public Set<Access> access() { return EnumSet.of(Access.LOCAL_WRITE); }
            @Override public String transportName() { return "fake"; }
            @Override public boolean isOpen() { return true; }
            @Override public void close() { }
        };
    }

    @Test
    void statusCodesAreTheVerbsNumbers() {
        WcStatus[] all = WcStatus.values();
        for (int i = 0; i < all.length; i++) {
            assertEquals(i, all[i].code(), all[i].name());
            assertSame(all[i], WcStatus.fromCode(i));
        }
        assertEquals(10, WcStatus.REM_ACCESS_ERR.code());
        assertEquals(5, WcStatus.WR_FLUSH_ERR.code());
        assertEquals(13, WcStatus.RNR_RETRY_EXC_ERR.code());
        assertSame(WcStatus.GENERAL_ERR, WcStatus.fromCode(999));
        assertSame(WcStatus.GENERAL_ERR, WcStatus.fromCode(-1));
        assertEquals(129, WcOpcode.RECV_RDMA_WITH_IMM.code());
        assertNull(WcOpcode.fromCode(3));
        assertEquals(6, Access.toVerbsFlags(EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ)));
        assertEquals(4, Opcode.READ.verbsOpcode());
        assertEquals(1, Opcode.WRITE_WITH_IMM.verbsOpcode());
        assertEquals(WcOpcode.RDMA_WRITE, WcOpcode.forRequest(Opcode.WRITE_WITH_IMM));
    }

    @Test
    void remoteRegionContainsIsOverflowSafe() {
        RemoteRegion r = new RemoteRegion(1000, 100, 7);
        assertTrue(r.contains(1000, 100));
        assertTrue(r.contains(1099, 1));
        assertTrue(r.contains(1100, 0));
        assertFalse(r.contains(1099, 2));
        assertFalse(r.contains(999, 1), "below the start");
        assertFalse(r.contains(1050, Long.MAX_VALUE), "length overflow");
        assertFalse(r.contains(Long.MIN_VALUE, 10));
        assertFalse(r.contains(1000, -1));
        RemoteRegion top = new RemoteRegion(-16L, 16, 1); // the last 16 bytes of the unsigned space
        assertTrue(top.contains(-16L, 16));
        assertFalse(top.contains(-8L, 16));
        assertEquals(new RemoteRegion(1010, 20, 7), r.slice(10, 20));
        assertThrows(IndexOutOfBoundsException.class, () -> r.slice(90, 20));
        assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(0, -1, 0));
    }

    @Test
    void workRequestFactoriesCheckTheShape() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion mr = fakeRegion(arena.allocate(64));
            ScatterGatherEntry sge = new ScatterGatherEntry(mr, 8, 16);
            assertEquals(mr.address() + 8, sge.address());
            WorkRequest w = WorkRequest.writeWithImm(5, sge, 0x1000, 9, 0xCAFE);
            assertEquals(16, w.byteLength());
            assertTrue(w.signaled());
            assertFalse(w.unsignaled().signaled());
            assertThrows(IndexOutOfBoundsException.class, () -> new ScatterGatherEntry(mr, 60, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> new ScatterGatherEntry(mr, -1, 8));
            assertThrows(IllegalArgumentException.class,
                    () -> new WorkRequest(1, Opcode.SEND, List.of(sge), 0x1000, 0, 0, true));
            assertThrows(IllegalArgumentException.class,
                    () -> new WorkRequest(1, Opcode.WRITE, List.of(sge), 0x1000, 1, 42, true));
            assertThrows(IllegalArgumentException.class,
                    () -> new WorkRequest(1, Opcode.RECV, List.of(sge), 0, 0, 0, false));
            assertEquals(0, WorkRequest.recv(3).byteLength());
        }
    }

    @Test
    void tcpEndpointCopiesAndHidesItsKey() {
        byte[] key = new byte[16];
        key[0] = 0x11;
        EndpointInfo.Tcp a = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 4000), 3, key);
        key[0] = 0x22;
        assertEquals(0x11, a.key()[0]);
        assertEquals(a, new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 4000), 3,
                new byte[] {0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        assertFalse(a.toString().contains("1100000000"), a.toString());
        assertEquals(EndpointInfo.Tcp.KIND, a.kind());
        assertThrows(IllegalArgumentException.class,
                () -> new EndpointInfo.Tcp(new InetSocketAddress("::1", 1), 1, new byte[15]));
    }

    @Test
    void verbsEndpointChecksFieldWidths() {
        Gid gid = Gid.fromBytes(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 2, (byte) 0xc9, 3, 0,
                (byte) 0xab, (byte) 0xcd, (byte) 0xef});
        assertEquals("fe800000000000000002c90300abcdef", gid.toHex());
        assertEquals("fe80:0:0:0:2:c903:ab:cdef", gid.toIpv6String());
        assertArrayEquals(gid.toBytes(), Gid.fromBytes(gid.toBytes()).toBytes());
        // RoCE v2: an IPv4-mapped GID must print as IPv6, not throw
        Gid roce = new Gid(0, 0x0000ffff0a000001L);
        assertEquals("0:0:0:0:0:ffff:a00:1", roce.toIpv6String());
        EndpointInfo.Verbs v = new EndpointInfo.Verbs(0xFFFFFF, 1, gid, 1, 1, Mtu.MTU_4096);
        assertEquals(EndpointInfo.Verbs.KIND, v.kind());
        assertThrows(IllegalArgumentException.class, () -> new EndpointInfo.Verbs(1 << 24, 1, gid, 1, 1, Mtu.MTU_1024));
        assertThrows(IllegalArgumentException.class, () -> new EndpointInfo.Verbs(1, 1, gid, 1, 0, Mtu.MTU_1024));
        assertEquals(Mtu.MTU_2048, Mtu.fromCode(4));
        assertThrows(IllegalArgumentException.class, () -> Mtu.fromCode(9));
    }

    @Test
    void batchResultSummarises() {
        Completion ok = Completion.success(1, WcOpcode.RDMA_WRITE, 100);
        Completion bad = Completion.failure(2, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE);
        assertTrue(new BatchResult(List.of(ok), false).isSuccess());
        assertFalse(new BatchResult(List.of(ok), true).isSuccess());
        BatchResult mixed = new BatchResult(List.of(ok, bad), false);
        assertFalse(mixed.isSuccess());
        assertEquals(bad, mixed.firstFailure().orElseThrow());
        assertEquals(100, mixed.bytesTransferred());
        assertThrows(IllegalArgumentException.class, () -> Completion.failure(1, WcStatus.SUCCESS, WcOpcode.SEND));
    }

    @Test
    void channelOptionsAndExceptionsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new ChannelOptions(0, 1, 1, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new ChannelOptions(1, 1, 1, Duration.ZERO));
        byte[] key = new byte[16];
        ChannelOptions withKey = ChannelOptions.DEFAULT.withAccessKey(key);
        key[0] = 1;
        assertEquals(0, withKey.accessKey()[0], "key is copied");
        assertNull(ChannelOptions.DEFAULT.accessKey());
        assertEquals(withKey, ChannelOptions.DEFAULT.withAccessKey(new byte[16]));
        assertFalse(withKey.toString().contains("0000"), withKey.toString());
        assertThrows(IllegalArgumentException.class, () -> ChannelOptions.DEFAULT.withAccessKey(new byte[8]));
        TransportException e = new TransportException(TransportError.AUTHENTICATION_FAILED, "wrong key");
        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error());
        assertTrue(e.getMessage().startsWith("AUTHENTICATION_FAILED"));
    }
}
