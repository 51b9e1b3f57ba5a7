package org.objrdma.verbs.internal.transport.dc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.internal.ffi.DcSendQueue;
import org.objrdma.verbs.internal.ffi.Mlx5DvConstants;

/** The DC values checked before anything reaches the device: peers, target regions, the DCI bound, outcomes. */
class DcValuesTest {

    private static final Gid GID = new Gid(0x0000_0000_0000_0000L, 0x0000_ffff_0a00_0001L);
    private static final DcPeer ROCE = new DcPeer(true, GID, 0);

    @Test
    void aPeerIsAGidOrALidNeverNeither() {
        assertEquals(7, new DcPeer(false, Gid.ZERO, 7).lid());
        assertThrows(IllegalArgumentException.class, () -> new DcPeer(false, Gid.ZERO, 0));
        assertThrows(IllegalArgumentException.class, () -> new DcPeer(true, Gid.ZERO, 0));
        assertThrows(IllegalArgumentException.class, () -> new DcPeer(false, GID, 7));
        assertThrows(IllegalArgumentException.class, () -> new DcPeer(false, Gid.ZERO, 0x10000));
    }

    @Test
    void aTargetCoversExactlyItsRegion() {
        DcTargetAddress t = new DcTargetAddress(ROCE, 0x12, 0x1000, 0x100, 0xabc);
        assertTrue(t.covers(0x1000, 0x100));
        assertTrue(t.covers(0x10ff, 1));
        assertTrue(t.covers(0x1100, 0));
        assertFalse(t.covers(0x10ff, 2), "one byte past the end");
        assertFalse(t.covers(0xfff, 1), "one byte before the start");
        assertFalse(t.covers(0x1001, Long.MAX_VALUE), "no overflow on a huge length");
        assertFalse(t.covers(-1L, 1), "an address that wraps");
        assertFalse(t.covers(0x1000, -1));
        // a region ending exactly at 2^64 is allowed, one that passes it is not
        assertTrue(new DcTargetAddress(ROCE, 1, -0x100L, 0x100, 1).covers(-1L, 1));
        assertThrows(IllegalArgumentException.class, () -> new DcTargetAddress(ROCE, 1, -0x100L, 0x101, 1));
        assertThrows(IllegalArgumentException.class, () -> new DcTargetAddress(ROCE, 0x100_0000, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new DcTargetAddress(ROCE, 1, 0, -1, 1));
    }

    @Test
    void numDcisIsBounded() {
        DcInitiator.validateNumDcis(1);
        DcInitiator.validateNumDcis(DcInitiator.MAX_DCIS);
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> DcInitiator.validateNumDcis(0));
        assertEquals("numDcis must be 1..256, was 0", zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DcInitiator.validateNumDcis(DcInitiator.MAX_DCIS + 1));
    }

    @Test
    void completionStatusesMapToOutcomes() {
        assertEquals(DcInitiator.Outcome.DONE, DcInitiator.classify(0));
        assertEquals(DcInitiator.Outcome.REFUSED, DcInitiator.classify(Mlx5DvConstants.IBV_WC_REM_ACCESS_ERR));
        assertEquals(DcInitiator.Outcome.REFUSED, DcInitiator.classify(Mlx5DvConstants.IBV_WC_LOC_PROT_ERR));
        assertEquals(DcInitiator.Outcome.UNREACHABLE, DcInitiator.classify(Mlx5DvConstants.IBV_WC_RETRY_EXC_ERR));
        assertEquals(DcInitiator.Outcome.UNREACHABLE, DcInitiator.classify(-1));
    }

    @Test
    void aRequestPrintsNeverItsDcKey() {
        long key = 0x5ec2e7_c0ffeeL;
        String printed = new DcSendQueue.Request(9, true, java.lang.foreign.MemorySegment.NULL, 0x12, key, 0xabc,
                0x1000, 7, 0x2000, 64).toString();
        assertEquals("WRITE wr_id 9 dctn 18 rkey 0xabc raddr 0x1000 len 64", printed);
        assertFalse(printed.contains(Long.toHexString(key)) || printed.contains(Long.toString(key)), printed);
    }

    @Test
    void theDescriptorIsNvidiasFormat() {
        Gid gid = new Gid(0xfe80_0000_0000_0000L, 0x0202_c9ff_fe00_0001L);
        String d = DcTarget.format(0x7f00_1234_5000L, 0x10_0000, 0xdeadbeef, 0x1a, 0x00_1234, gid);
        assertEquals("00007f0012345000:00100000:deadbeef:001a:001234:1:fe800000000000000202c9fffe000001", d);
        assertEquals(81, d.length());
    }
}
