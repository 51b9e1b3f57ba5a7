package org.objrdma.session.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * A TCP client of the session core in the test's process: memory registered with its own TCP transport and one
 * channel; it names its agent at PREPARE and its channel at READY, as objrdma's TCP clients do.
 */
final class TcpTestClient implements AutoCloseable {
    final MemorySegment memory;
    final MemoryRegion region;
    final Channel channel;
    private final PrincipalId principal;
    private final int cookie;

    TcpTestClient(Arena arena, TcpTransport transport, int size, PrincipalId principal, int cookie) throws Exception {
        this.memory = arena.allocate(size, 4096);
        this.region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        this.channel = transport.openChannel(ChannelOptions.DEFAULT);
        this.principal = principal;
        this.cookie = cookie;
    }

    /** What the client sends at PREPARE: its agent and key; READY names the channel. */
    EndpointInfo preparedEndpoint() {
        EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
        return new EndpointInfo.Tcp(mine.address(), 0, mine.key());
    }

    ReadyRequest ready(SessionId id) {
        return new ReadyRequest(principal, id, cookie, channel.id(), null);
    }

    @Override
    public void close() {
        channel.close();
        region.close();
    }
}
