package org.objrdma.verbs.internal.transport.dc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.Mlx5DvConstants;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.PortAttributes;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The DC binding end to end on the software device: a {@link DcTarget} (DCT + SRQ + MR over a client buffer) and a
 * {@link DcInitiator} (DCIs) on the same device, reached by LID and by GID. Byte-exact WRITE and READ; a wrong DC
 * key, a forged rkey and an address past the buffer refused with nothing written; DCIs usable again after a refusal;
 * every DC object back to baseline when both sides close.
 */
class DcOnSoftDeviceTest {

    private static final long KEY = 0xffeeddccL;
    private static final int SIZE = 1 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static MethodHandle liveObjects;

    private VerbsLibrary lib;
    private Mlx5DvLibrary mlx5;
    private VerbsLibrary.DeviceList list;
    private MemorySegment ctx;
    private MemorySegment pd;
    private Arena arena;
    private DcPort port;
    private int lid;
    private Gid gid;
    private MemorySegment clientBuffer;
    private MemorySegment staging;
    private VerbsLibrary.RegisteredMemory stagingMr;
    private int[] baseline;

    private static int live(int kind) throws Throwable {
        if (liveObjects == null) {
            SymbolLookup l = SymbolLookup.libraryLookup(Path.of(SoftVerbs.library()), Arena.global());
            liveObjects = Linker.nativeLinker().downcallHandle(l.find("softverbs_live_objects").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        }
        return (int) liveObjects.invokeExact(kind);
    }

    /** MRs, CQs, QPs, SRQs, AHs. */
    private static int[] census() throws Throwable {
        return new int[] {live(2), live(3), live(4), live(7), live(8)};
    }

    @BeforeEach
    void open() throws Throwable {
        lib = VerbsLibrary.load(SoftVerbs.library());
        mlx5 = Mlx5DvLibrary.load(SoftVerbs.library());
        assertTrue(mlx5.isAvailable(), () -> mlx5.unavailabilityCause().orElse(""));
        list = lib.listDevices();
        VerbsLibrary.DeviceEntry dev = list.devices().getFirst();
        ctx = lib.openDevice(dev);
        assertEquals(java.util.Optional.empty(), mlx5.dcUnavailability(dev.device(), ctx));
        pd = lib.allocPd(ctx);
        PortAttributes p = lib.queryPort(ctx, 1);
        lid = p.lid();
        gid = lib.queryGid(ctx, 1, 0);
        port = new DcPort(1, p.activeMtu(), false, 0);
        arena = Arena.ofShared();
        clientBuffer = arena.allocate(SIZE, 4096);
        staging = arena.allocate(SIZE, 4096);
        baseline = census();
        // the server's staging is local-only: no rkey reaches it
        stagingMr = lib.regMr(pd, staging, IbvConstants.IBV_ACCESS_LOCAL_WRITE);
    }

    @AfterEach
    void close() throws Throwable {
        lib.deregMr(stagingMr.mr());
        assertArrayEquals(baseline, census(), "MRs, CQs, QPs, SRQs, AHs back to baseline");
        assertEquals(0, lib.deallocPd(pd));
        assertEquals(0, lib.closeDevice(ctx));
        list.close();
        arena.close();
        mlx5.close();
        lib.close();
    }

    private static void fill(MemorySegment s, long seed) {
        byte[] b = new byte[(int) s.byteSize()];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(b, 0, s, JAVA_BYTE, 0, b.length);
    }

    private DcTargetAddress addressOf(DcTarget t, DcPeer peer) {
        return new DcTargetAddress(peer, t.dctn(), t.address(), t.size(), t.rkey());
    }

    @Test
    void writeAndReadAreByteExactByLidAndByGid() throws Throwable {
        try (DcTarget target = DcTarget.open(lib, mlx5, ctx, pd, port, lid, gid, clientBuffer, KEY);
             DcInitiator dc = DcInitiator.open(lib, mlx5, ctx, pd, port, 2, 1)) {
            assertEquals(81, target.descriptor().length());
            for (DcPeer peer : new DcPeer[] {new DcPeer(false, Gid.ZERO, lid), new DcPeer(true, gid, 0)}) {
                DcTargetAddress addr = addressOf(target, peer);
                fill(staging, peer.hashCode());
                // GET: staging -> client, at an offset inside the client's buffer
                DcInitiator.Result w = dc.transfer(addr, KEY, true, target.address() + 4096, stagingMr.lkey(),
                        staging.address(), 256 * 1024, TIMEOUT);
                assertEquals(DcInitiator.Outcome.DONE, w.outcome(), "status " + w.wcStatus());
                assertEquals(-1, clientBuffer.asSlice(4096, 256 * 1024).mismatch(staging.asSlice(0, 256 * 1024)));
                // PUT: client -> staging
                fill(clientBuffer, ~peer.hashCode());
                staging.fill((byte) 0);
                DcInitiator.Result r = dc.transfer(addr, KEY, false, target.address(), stagingMr.lkey(),
                        staging.address(), SIZE, TIMEOUT);
                assertEquals(DcInitiator.Outcome.DONE, r.outcome(), "status " + r.wcStatus());
                assertEquals(-1, staging.mismatch(clientBuffer));
            }
            assertEquals(2, dc.resources().addressHandles(), "one cached AH per peer port");
        }
    }

    @Test
    void aWrongDcKeyAForgedRkeyAndAnAddressPastTheBufferAreRefusedWithNothingWritten() throws Throwable {
        try (DcTarget target = DcTarget.open(lib, mlx5, ctx, pd, port, lid, gid, clientBuffer, KEY);
             DcInitiator dc = DcInitiator.open(lib, mlx5, ctx, pd, port, 1, 1)) {
            DcPeer peer = new DcPeer(false, Gid.ZERO, lid);
            DcTargetAddress addr = addressOf(target, peer);
            clientBuffer.fill((byte) 0x5a);
            fill(staging, 7);

            DcInitiator.Result wrongKey = dc.transfer(addr, KEY ^ 1, true, target.address(), stagingMr.lkey(),
                    staging.address(), 4096, TIMEOUT);
            assertEquals(DcInitiator.Outcome.REFUSED, wrongKey.outcome());
            assertEquals(Mlx5DvConstants.IBV_WC_REM_ACCESS_ERR, wrongKey.wcStatus());

            DcTargetAddress forged = new DcTargetAddress(peer, target.dctn(), target.address(), target.size(),
                    target.rkey() + 1);
            DcInitiator.Result forgedRkey = dc.transfer(forged, KEY, true, target.address(), stagingMr.lkey(),
                    staging.address(), 4096, TIMEOUT);
            assertEquals(DcInitiator.Outcome.REFUSED, forgedRkey.outcome());

            // past the buffer: refused here before posting ...
            assertThrows(IllegalArgumentException.class, () -> dc.transfer(addr, KEY, true,
                    target.address() + SIZE - 100, stagingMr.lkey(), staging.address(), 4096, TIMEOUT));
            // ... and by the target when a descriptor lies about its size
            DcTargetAddress inflated = new DcTargetAddress(peer, target.dctn(), target.address(), 2L * SIZE,
                    target.rkey());
            DcInitiator.Result past = dc.transfer(inflated, KEY, true, target.address() + SIZE - 100,
                    stagingMr.lkey(), staging.address(), 4096, TIMEOUT);
            assertEquals(DcInitiator.Outcome.REFUSED, past.outcome());

            byte[] expected = new byte[SIZE];
            java.util.Arrays.fill(expected, (byte) 0x5a);
            assertArrayEquals(expected, clientBuffer.toArray(JAVA_BYTE), "nothing was written");

            // the one DCI was recovered after each refusal: the right request still works
            DcInitiator.Result ok = dc.transfer(addr, KEY, true, target.address(), stagingMr.lkey(),
                    staging.address(), 4096, TIMEOUT);
            assertEquals(DcInitiator.Outcome.DONE, ok.outcome(), "status " + ok.wcStatus());
            assertEquals(new DcInitiator.Resources(1, 1, 0, 1), dc.resources());
        }
    }

    @Test
    void theAddressHandleCacheEvictsOnlyIdleHandlesAndNeverLeaks() throws Throwable {
        DcPeer byLid = new DcPeer(false, Gid.ZERO, lid);
        DcPeer byGid = new DcPeer(true, gid, 0);
        DcPeer byIpv4 = new DcPeer(true, new Gid(0, 0x0000_ffff_7f00_0001L), 0);
        try (DcAddressHandles handles = new DcAddressHandles(mlx5, pd, port, 1)) {
            DcAddressHandles.Lease a = handles.acquire(byLid);
            handles.release(a);
            assertEquals(1, handles.live(), "kept for the next request to the same peer");
            DcAddressHandles.Lease again = handles.acquire(byLid);
            assertEquals(a.ah(), again.ah(), "the cached handle is reused");
            // the cache is full and its one handle is held: a new peer gets a handle for its request alone
            DcAddressHandles.Lease b = handles.acquire(byGid);
            assertEquals(2, handles.live());
            handles.release(b);
            assertEquals(1, handles.live(), "the uncached handle is destroyed on release");
            handles.release(again);
            // now the cached one is idle: a new peer evicts it
            DcAddressHandles.Lease c = handles.acquire(byIpv4);
            assertEquals(1, handles.live());
            // forgetting a held handle destroys it on release, not before
            handles.forget(byIpv4);
            assertEquals(1, handles.live());
            handles.release(c);
            assertEquals(0, handles.live());
            handles.release(handles.acquire(byLid));
        }
        assertEquals(baseline[4], live(8), "close destroyed the cached handle");
    }

    @Test
    void aTargetThatWentAwayIsUnreachableAndItsHandleCanBeForgotten() throws Throwable {
        try (DcInitiator dc = DcInitiator.open(lib, mlx5, ctx, pd, port, 1, 1)) {
            DcPeer peer = new DcPeer(true, gid, 0);
            DcTargetAddress addr;
            try (DcTarget target = DcTarget.open(lib, mlx5, ctx, pd, port, lid, gid, clientBuffer, KEY)) {
                addr = addressOf(target, peer);
                assertEquals(DcInitiator.Outcome.DONE, dc.transfer(addr, KEY, false, target.address(),
                        stagingMr.lkey(), staging.address(), 64, TIMEOUT).outcome());
            }
            DcInitiator.Result gone = dc.transfer(addr, KEY, false, addr.regionAddress(), stagingMr.lkey(),
                    staging.address(), 64, Duration.ofSeconds(5));
            assertTrue(gone.outcome() != DcInitiator.Outcome.DONE, gone.toString());
            assertEquals(1, dc.resources().addressHandles());
            dc.forget(peer);
            assertEquals(0, dc.resources().addressHandles());
            assertEquals(1, dc.resources().idleDcis(), "the DCI came back after the failure");
        }
    }
}
