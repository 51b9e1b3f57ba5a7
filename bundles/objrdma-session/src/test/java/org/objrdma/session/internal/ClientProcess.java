package org.objrdma.session.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * The GET client of {@link DeadPeerTest}, run in a second JVM: a TCP transport on loopback with
 * {@code args[0]} bytes registered and one channel, and <em>no</em> receive posted, so the server's
 * WRITE_WITH_IMM waits at this agent (for its long receiver-not-ready wait) until the test kills this
 * process. Prints {@code READY <host> <port> <channelId> <keyHex> <address> <rkey>}, then serves until its
 * standard input closes or it is killed.
 */
public final class ClientProcess {
    private ClientProcess() {
    }

    public static void main(String[] args) throws Exception {
        long size = Long.parseLong(args[0]);
        // the receiver-not-ready wait is long (20 s): the write is still waiting here when the process dies
        TcpSettings settings = TcpSettings.loopbackDefaults().withTimes(Duration.ofMillis(250), Duration.ofSeconds(30),
                Duration.ofSeconds(20));
        try (TcpTransport transport = TcpTransport.start(settings, () -> Telemetry.NOOP); Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            MemoryRegion region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            Channel channel = transport.openChannel(ChannelOptions.DEFAULT);
            EndpointInfo.Tcp ep = (EndpointInfo.Tcp) channel.localEndpoint();
            System.out.println("READY " + ep.address().getAddress().getHostAddress() + " " + ep.address().getPort()
                    + " " + ep.channelId() + " " + HexFormat.of().formatHex(ep.key()) + " " + region.address()
                    + " " + region.rkey());
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our input
            }
            channel.close();
            region.close();
        }
    }
}
