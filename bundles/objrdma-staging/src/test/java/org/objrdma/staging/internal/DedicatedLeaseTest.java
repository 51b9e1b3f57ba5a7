package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.staging.internal.TestSupport.ALICE;
import static org.objrdma.staging.internal.TestSupport.BOB;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.testsupport.CountingTelemetry;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.staging.internal.TestSupport.RecordingReports;
import org.objrdma.staging.internal.TestSupport.SettingsBuilder;
import org.objrdma.testsupport.FakeTransport;

/**
 * {@link BufferPool#borrowDedicated}: one unpooled buffer of an exact size above the largest class, charged against
 * the byte limits (and refused at once naming the limit), counted in the stats, registered and freed once.
 */
class DedicatedLeaseTest {

    private final FakeTransport transport = TestSupport.recordingTransport("rec-d");
    private final List<BufferPool> pools = new ArrayList<>();

    /** Largest class 64 KiB, 1 MiB in all, 256 KiB per principal. */
    private BufferPool pool() {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBytesPerPrincipal = 256 << 10;
        BufferPool p = new BufferPool(b.build(), transport, CountingTelemetry::new, new FakeClock(),
                new RecordingReports());
        pools.add(p);
        return p;
    }

    @AfterEach
    void close() {
        pools.forEach(BufferPool::shutdown);
    }

    @Test
    void aDedicatedLeaseIsExactlyItsSizeRegisteredChargedAndFreedOnce() throws Exception {
        BufferPool p = pool();
        int size = 3 * (64 << 10) + 1;
        StagingLease lease = p.borrowDedicated(size, ALICE, "s1", transport);
        assertEquals(size, lease.size());
        assertEquals(size, lease.segment().byteSize());
        assertEquals(size, lease.region().length(), "no size class: the region is the lease");
        assertEquals(0, lease.segment().address() % StagingSettings.PAGE_SIZE, "page aligned");
        assertEquals(1, transport.registered());
        assertEquals(size, p.ledger().bytesLent(ALICE));
        assertEquals(1, p.stats().borrowed());
        assertEquals(size, p.stats().bytesBorrowed());
        lease.segment().set(ValueLayout.JAVA_BYTE, size - 1, (byte) 7); // writable to its last byte
        assertTrue(lease.release());
        assertFalse(lease.isActive());
        assertEquals(1, transport.deregistered(), "deregistered before the memory went");
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(0, p.stats().borrowed());
        assertFalse(lease.release(), "consume-once: a second return is reported and changes nothing");
        assertEquals(1, p.stats().doubleReturns());
        assertEquals(1, transport.deregistered());
        assertEquals(0, p.ledger().bytesLent());
    }

    @Test
    void theByteLimitsRefuseAtOnceNamingTheLimitAndChargeNothing() throws Exception {
        BufferPool p = pool();
        StagingException perPrincipal = assertThrows(StagingException.class,
                () -> p.borrowDedicated((256 << 10) + 1, ALICE, "s1", transport));
        assertEquals(StagingStatus.LIMIT, perPrincipal.status());
        assertTrue(perPrincipal.getMessage().contains("max.bytes.per.principal"), perPrincipal.getMessage());
        List<StagingLease> held = new ArrayList<>();
        for (var who : List.of(ALICE, BOB)) {
            held.add(p.borrowDedicated(256 << 10, who, "fill", transport));
        }
        held.add(p.borrowDedicated(256 << 10, org.objrdma.api.PrincipalId.fromCanonical("carol"), "fill", transport));
        held.add(p.borrowDedicated(200 << 10, org.objrdma.api.PrincipalId.fromCanonical("dave"), "fill", transport));
        StagingException total = assertThrows(StagingException.class,
                () -> p.borrowDedicated(100 << 10, org.objrdma.api.PrincipalId.fromCanonical("erin"), "s2", transport));
        assertEquals(StagingStatus.LIMIT, total.status());
        assertTrue(total.getMessage().contains("max.total.bytes"), total.getMessage());
        assertEquals(4, transport.registered(), "a refusal allocates and registers nothing");
        held.forEach(StagingLease::release);
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(0, p.stats().borrowed());
    }

    @Test
    void badSizesARefusedTransportAndAClosedPoolAreRefusedWithTheirStatus() throws Exception {
        BufferPool p = pool();
        assertEquals(StagingStatus.INVALID_SIZE, assertThrows(StagingException.class,
                () -> p.borrowDedicated(0, ALICE, "s", transport)).status());
        assertEquals(StagingStatus.INVALID_SIZE, assertThrows(StagingException.class,
                () -> p.borrowDedicated(1L << 31, ALICE, "s", transport)).status());
        transport.refuseNext.set(1);
        assertEquals(StagingStatus.REGISTRATION_FAILED, assertThrows(StagingException.class,
                () -> p.borrowDedicated(100_000, ALICE, "s", transport)).status());
        assertEquals(0, p.ledger().bytesLent(), "a refused registration gives its charge back");
        StagingLease out = p.borrowDedicated(100_000, ALICE, "s", transport);
        p.shutdown();
        assertEquals(StagingStatus.CLOSED, assertThrows(StagingException.class,
                () -> p.borrowDedicated(100_000, ALICE, "s", transport)).status());
        assertTrue(out.release(), "a lease still out at shutdown is freed when it comes back");
        assertEquals(transport.registered(), transport.deregistered());
    }
}
