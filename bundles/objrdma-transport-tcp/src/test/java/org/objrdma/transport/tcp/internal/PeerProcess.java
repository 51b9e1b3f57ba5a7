package org.objrdma.transport.tcp.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.HexFormat;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;

/**
 * The peer of {@link PeerProcessKillTest}, run in a second JVM: opens a TCP transport on loopback, registers
 * {@code args[0]} MiB and opens one channel, prints one line
 * {@code READY <host> <port> <channelId> <keyHex> <address> <rkey>} and then serves until its standard input
 * closes or it is killed.
 */
public final class PeerProcess {
    private PeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        long size = Long.parseLong(args[0]) << 20;
        try (TcpTransport transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
             Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            MemoryRegion region = transport.register(memory,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
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
