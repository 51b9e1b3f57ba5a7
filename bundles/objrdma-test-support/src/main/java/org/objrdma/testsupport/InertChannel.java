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
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;

/**
 * A channel of a {@link FakeTransport} in {@code INERT} mode: a small object sharing one endpoint value that
 * connects to anything and completes every batch empty, so a benchmark of control-plane cycles measures the code
 * under test, not a transport. A channel of a {@code VERBS_RC}-level fake names a verbs endpoint (its id as the
 * queue pair number), as code that reads the local queue pair of a verbs channel expects.
 */
final class InertChannel implements Channel {
    private static final EndpointInfo.Tcp ENDPOINT = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 1), 1,
            new byte[16]);
    private static final Gid LINK_LOCAL = Gid.fromBytes(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 1});
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
    @Override
    public EndpointInfo localEndpoint() {
        if (transport.level() == TransportLevel.VERBS_RC) {
            return new EndpointInfo.Verbs((int) (id & 0xFFFFFF), 1, LINK_LOCAL, 0, 1, Mtu.MTU_4096);
        }
        return ENDPOINT;
    }
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
