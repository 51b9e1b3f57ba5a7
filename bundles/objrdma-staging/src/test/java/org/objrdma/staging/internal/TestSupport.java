package org.objrdma.staging.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.objrdma.api.PrincipalId;
import org.objrdma.testsupport.Configs;
import org.objrdma.testsupport.FakeTransport;

/** Small test doubles shared by the staging tests: a settable clock, recorded reports, counting telemetry. */
final class TestSupport {

    static final PrincipalId ALICE = PrincipalId.fromCanonical("alice");
    static final PrincipalId BOB = PrincipalId.fromCanonical("bob");

    private TestSupport() {
    }

    /** Keeps every report and also logs it, so the log format is exercised too. */
    static final class RecordingReports implements LeaseReports {
        private final LoggingLeaseReports log = new LoggingLeaseReports();
        final List<PooledLease> overdue = new CopyOnWriteArrayList<>();
        final List<PooledLease> doubleReturns = new CopyOnWriteArrayList<>();
        final List<PooledLease> unreturned = new CopyOnWriteArrayList<>();

        @Override
        public void overdue(PooledLease lease, Duration heldFor, Duration deadline) {
            overdue.add(lease);
            log.overdue(lease, heldFor, deadline);
        }

        @Override
        public void doubleReturn(PooledLease lease) {
            doubleReturns.add(lease);
            log.doubleReturn(lease);
        }

        @Override
        public void unreturnedAtShutdown(PooledLease lease) {
            unreturned.add(lease);
            log.unreturnedAtShutdown(lease);
        }
    }

    /** Settings built from the defaults with some values changed; the constructor validates as in production. */
    static final class SettingsBuilder {
        long minBufferSize = 4096;
        long maxBufferSize = 64 * 1024;
        long maxTotalBytes = 1 << 20;
        long maxBytesPerPrincipal = 1 << 20;
        int maxBuffersPerClass = 64;
        /** Negative: as many as {@link #maxBuffersPerClass} (no per-principal share), unless a test sets it. */
        int maxBuffersPerPrincipalPerClass = -1;
        int idlePerClass = 4;
        Duration idleTimeout = Duration.ofMinutes(10);
        Duration borrowWait = Duration.ofSeconds(1);
        Duration leaseDeadline = Duration.ofSeconds(60);
        Duration leaseCheckPeriod = Duration.ofHours(1); // tests call the check themselves
        boolean trackStacks;
        Duration shutdownTimeout = Duration.ofMillis(200);
        boolean scrubOnReturn = true;

        StagingSettings build() {
            return new StagingSettings(minBufferSize, maxBufferSize, maxTotalBytes, maxBytesPerPrincipal,
                    maxBuffersPerClass, maxBuffersPerPrincipalPerClass < 0 ? maxBuffersPerClass
                            : maxBuffersPerPrincipalPerClass, idlePerClass, idleTimeout, borrowWait, leaseDeadline, leaseCheckPeriod,
                    trackStacks, shutdownTimeout, scrubOnReturn);
        }
    }

    /**
     * An instance of the configuration annotation as Configuration Admin would hand it over: the declared
     * defaults, with {@code overrides} keyed by method name.
     */
    static StagingPoolConfig config(Map<String, Object> overrides) {
        return Configs.of(StagingPoolConfig.class, overrides);
    }

    /**
     * The unit tests' transport: registering only records the region (keys from 1), so tests count every
     * registration and every deregistration per region. Channels are not offered (UNAVAILABLE).
     */
    static FakeTransport recordingTransport(String name) {
        return FakeTransport.builder(name).channels(FakeTransport.ChannelMode.NONE).firstKey(1).build();
    }

}
