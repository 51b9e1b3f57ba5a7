package org.objrdma.session.internal.bench;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WorkRequest;

/**
 * A transport that costs (almost) nothing: channels are small objects sharing one endpoint value, so a
 * benchmark of control-plane cycles measures the session core, not a transport.
 */
public final class InertTransport implements Transport {
    private static final EndpointInfo.Tcp ENDPOINT = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 1), 1,
            new byte[16]);
    private final AtomicLong ids = new AtomicLong();

    @Override public String name() { return "inert"; }
    @Override public TransportLevel level() { return TransportLevel.TCP; }
    @Override public boolean isAvailable() { return true; }
    @Override public Optional<String> unavailabilityCause() { return Optional.empty(); }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) {
        return new MemoryRegion() {
            @Override public MemorySegment segment() { return segment; }
            @Override public long address() { return segment.address(); }
            @Override public long length() { return segment.byteSize(); }
            @Override public int lkey() { return 1; }
            @Override public int rkey() { return 1; }
            @Override public Set<Access> access() { return access; }
            @Override public String transportName() { return "inert"; }
            @Override public boolean isOpen() { return true; }
            @Override public void close() { }
        };
    }

    @Override
    public Channel openChannel(ChannelOptions options) {
        return new InertChannel(ids.incrementAndGet());
    }

    private static final class InertChannel implements Channel {
        private final long id;
        private volatile ChannelState state = ChannelState.INIT;

        InertChannel(long id) {
            this.id = id;
        }

        @Override public long id() { return id; }
        @Override public String transportName() { return "inert"; }
        @Override public EndpointInfo localEndpoint() { return ENDPOINT; }
        @Override public EndpointInfo remoteEndpoint() { return null; }
        @Override public ChannelState state() { return state; }
        @Override public void connect(EndpointInfo remote) { state = ChannelState.CONNECTED; }
        @Override public void post(WorkRequest request) { }
        @Override public int poll(Completion[] out) { return 0; }

        @Override
        public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
            return CompletableFuture.completedFuture(new BatchResult(List.of(), false));
        }

        @Override
        public void reset() throws TransportException {
            if (state == ChannelState.CLOSED) {
                throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
            }
            state = ChannelState.INIT;
        }

        @Override
        public void close() {
            state = ChannelState.CLOSED;
        }
    }
}
