package org.objrdma.session.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Principal P1 of {@link StagingGrantIsolationTest}, in a second JVM: its own TCP transport with {@code args[0]}
 * channels and {@code args[1]} bytes of local memory filled with {@code 0xa5}. Prints one line per channel,
 * {@code CH <i> <host> <port> <channelId> <keyHex>}, then obeys lines on standard input:
 * <ul>
 *   <li>{@code CONNECT <i> <host> <port> <channelId> <keyHex>}: connect channel i to a server channel → {@code CONNECTED <i>}
 *       or {@code FAILED <i> <why>};</li>
 *   <li>{@code WRITE|READ <i> <address> <rkey> <length>}: one one-sided operation on channel i → {@code DONE <i> <status>}
 *       (the completion's status name) or {@code FAILED <i> <why>}.</li>
 * </ul>
 * Ends when its input closes.
 */
public final class AttackerProcess {
    private AttackerProcess() {
    }

    public static void main(String[] args) throws Exception {
        int channels = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        try (TcpTransport transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
             Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            memory.fill((byte) 0xa5);
            MemoryRegion local = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            Channel[] ch = new Channel[channels];
            for (int i = 0; i < channels; i++) {
                ch[i] = transport.openChannel(ChannelOptions.DEFAULT);
                EndpointInfo.Tcp ep = (EndpointInfo.Tcp) ch[i].localEndpoint();
                System.out.println("CH " + i + " " + ep.address().getAddress().getHostAddress() + " "
                        + ep.address().getPort() + " " + ep.channelId() + " " + HexFormat.of().formatHex(ep.key()));
            }
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split(" ");
                int i = Integer.parseInt(f[1]);
                try {
                    switch (f[0]) {
                        case "CONNECT" -> {
                            ch[i].connect(new EndpointInfo.Tcp(new InetSocketAddress(f[2], Integer.parseInt(f[3])),
                                    Long.parseLong(f[4]), HexFormat.of().parseHex(f[5])));
                            System.out.println("CONNECTED " + i);
                        }
                        case "WRITE", "READ" -> {
                            long address = Long.parseLong(f[2]);
                            int rkey = Integer.parseInt(f[3]);
                            ScatterGatherEntry sge = new ScatterGatherEntry(local, 0, Integer.parseInt(f[4]));
                            WorkRequest wr = f[0].equals("WRITE") ? WorkRequest.write(1, sge, address, rkey)
                                    : WorkRequest.read(2, sge, address, rkey);
                            BatchResult r = ch[i].submit(List.of(wr), Duration.ofSeconds(10)).get(20, TimeUnit.SECONDS);
                            System.out.println("DONE " + i + " " + r.completions().get(0).status());
                        }
                        default -> System.out.println("FAILED " + i + " unknown command " + f[0]);
                    }
                } catch (Exception e) {
                    System.out.println("FAILED " + i + " " + e);
                }
                System.out.flush();
            }
            for (Channel c : ch) {
                c.close();
            }
            local.close();
        }
    }
}
