package org.objrdma.cuobj;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.objrdma.api.session.Op;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjGrant;
import org.objrdma.client.CuObjAgent;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * The client of the end-to-end tests, run in its own JVM: a TCP transport (the memory agent), registered memory
 * and a {@link CuObjAgent} with the agent key. It reads one command per line on stdin and answers one line on
 * stdout ({@code OK ...} or {@code ERR ...}); logs go to stderr.
 *
 * <pre>
 * args: agentKeyHex memoryBytes lanes
 * DESC GET|PUT offset size lane   → OK descriptor
 * FILL offset length seed         → OK crc32c
 * CRC offset length               → OK crc32c
 * LANE-ID lane                    → OK channel id of the lane now
 * QUIT                            → (exits)
 * </pre>
 */
public final class ClientProcess {
    private ClientProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err); // nothing but answers on stdout
        byte[] key = HexFormat.of().parseHex(args[0]);
        long size = Long.parseLong(args[1]);
        int lanes = Integer.parseInt(args[2]);
        try (TcpTransport transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
             Arena arena = Arena.ofShared()) {
            MemorySegment segment = arena.allocate(size, 4096);
            try (ClientMemory memory = ClientMemory.register(transport, segment);
                 CuObjAgent agent = CuObjAgent.open(transport, key, lanes, CuObjAgent.DEFAULT_MAX_REQUEST_SIZE)) {
                java.util.List<CuObjGrant> grants = new java.util.ArrayList<>();
                out.println("READY " + transport.agentAddress());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    String[] w = line.trim().split("\\s+");
                    try {
                        switch (w[0]) {
                            case "DESC" -> {
                                // the grant lives until the agent closes (or its lane resets): the tests reuse
                                // descriptors across requests; expired ones are dropped from the list
                                CuObjGrant g = agent.descriptor(memory, Long.parseLong(w[2]), Long.parseLong(w[3]),
                                        Op.valueOf(w[1]), Integer.parseInt(w[4]));
                                grants.removeIf(x -> !x.isValid());
                                grants.add(g);
                                out.println("OK " + g.descriptor().format());
                            }
                            case "FILL" -> {
                                long off = Long.parseLong(w[1]);
                                long len = Long.parseLong(w[2]);
                                Patterns.fill(segment, off, len, Long.parseLong(w[3]));
                                out.println("OK " + Patterns.crc(segment, off, len));
                            }
                            case "CRC" -> out.println("OK " + Patterns.crc(segment, Long.parseLong(w[1]),
                                    Long.parseLong(w[2])));
                            case "LANE-ID" -> out.println("OK " + agent.channel(Integer.parseInt(w[1])).id());
                            case "QUIT" -> {
                                out.println("OK bye");
                                return;
                            }
                            default -> out.println("ERR unknown command " + w[0]);
                        }
                    } catch (Exception e) {
                        out.println("ERR " + e);
                    }
                }
            }
        }
    }
}
