package org.objrdma.testsupport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;

/**
 * A channel of a {@link FakeTransport} in {@code INERT} mode: a small object sharing one endpoint value that
 * connects to anything and completes every batch empty, so a benchmark of control-plane cycles measures the code
 * under test, not a transport.
 */
final class InertChannel implements Channel {
    private static final EndpointInfo.Tcp ENDPOINT = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 1), 1,
            new byte[16]);
    private static final CompletableFuture<BatchResult> EMPTY =
            CompletableFuture.completedFuture(new BatchResult(List.of(), false));

    private final FakeTransport transport;
    private final long id;
    private volatile ChannelState state = ChannelState.INIT;

    InertChannel(FakeTransport transport, long id) {
        this.transport = transport;
        this.id = id;
    }

    @Override public long id() { return id; }
    @Override public String transportName() { return transport.name(); }
    @Override public EndpointInfo localEndpoint() { return ENDPOINT; }
    @Override public EndpointInfo remoteEndpoint() { return null; }
    @Override public ChannelState state() { return state; }
    @Override public void connect(EndpointInfo remote) { state = ChannelState.CONNECTED; }
    @Override public void post(WorkRequest request) { }
    @Override public int poll(Completion[] out) { return 0; }

    @Override
    public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        return EMPTY;
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
        if (state != ChannelState.CLOSED) {
            state = ChannelState.CLOSED;
            transport.closed.incrementAndGet();
        }
    }
}
