package org.objrdma.staging.internal;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;

/**
 * A unit-test stand-in for a transport: registering only records the region, so tests can count every
 * registration and every deregistration per region. Channels are not offered.
 */
final class RecordingTransport implements Transport {

    private final String name;
    private final List<RecordedRegion> regions = new CopyOnWriteArrayList<>();
    private final AtomicInteger keys = new AtomicInteger(1);
    /** Registrations to refuse before accepting again (RESOURCE_EXHAUSTED). */
    final AtomicInteger refuseNext = new AtomicInteger();

    RecordingTransport(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TransportLevel level() {
        return TransportLevel.TCP;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return Optional.empty();
    }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        if (!segment.isNative() || segment.byteSize() == 0 || access.isEmpty()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "bad segment or access");
        }
        if (refuseNext.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "refused by the test");
        }
        RecordedRegion r = new RecordedRegion(this, segment, Set.copyOf(access), keys.getAndIncrement());
        regions.add(r);
        return r;
    }

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        throw new TransportException(TransportError.UNAVAILABLE, "the recording transport has no channels");
    }

    List<RecordedRegion> regions() {
        return regions;
    }

    int registered() {
        return regions.size();
    }

    int deregistered() {
        return (int) regions.stream().filter(r -> r.closeCalls() > 0).count();
    }

    /** Regions closed more than once: must always be empty. */
    List<RecordedRegion> closedTwice() {
        return regions.stream().filter(r -> r.closeCalls() > 1).toList();
    }

    int open() {
        return (int) regions.stream().filter(RecordedRegion::isOpen).count();
    }

    /** A region that counts its close calls. */
    static final class RecordedRegion implements MemoryRegion {
        private final RecordingTransport transport;
        private final MemorySegment segment;
        private final Set<Access> access;
        private final int key;
        private final AtomicInteger closeCalls = new AtomicInteger();
        private volatile boolean open = true;
        /** Set by the test to see whether the memory was still readable when the region closed. */
        volatile boolean memoryAliveAtClose;

        RecordedRegion(RecordingTransport transport, MemorySegment segment, Set<Access> access, int key) {
            this.transport = transport;
            this.segment = segment;
            this.access = access;
            this.key = key;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public long address() {
            return segment.address();
        }

        @Override
        public long length() {
            return segment.byteSize();
        }

        @Override
        public int lkey() {
            return key;
        }

        @Override
        public int rkey() {
            return key;
        }

        @Override
        public Set<Access> access() {
            return access;
        }

        @Override
        public String transportName() {
            return transport.name;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            closeCalls.incrementAndGet();
            if (open) {
                memoryAliveAtClose = segment.scope().isAlive();
                open = false;
            }
        }

        int closeCalls() {
            return closeCalls.get();
        }
    }
}
