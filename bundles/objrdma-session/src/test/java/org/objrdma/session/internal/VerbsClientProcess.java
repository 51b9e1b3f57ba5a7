package org.objrdma.session.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.transport.VerbsTransport;

/**
 * The hipobj-rc-v2 RDMA client of {@link VerbsSecondJvmTest}, in a second JVM: its own verbs transport on the
 * software device (so its queue pairs are another process's, reached through the device's fabric), with
 * {@code args[0]} bytes registered LOCAL_WRITE | REMOTE_WRITE. It prints {@code READY <address> <rkey>} and
 * then obeys one command per line on standard input, answering one line each:
 * <ul>
 * <li>{@code OPEN} - a new queue pair (the previous one closed): {@code CH <endpoint>}</li>
 * <li>{@code FILL <seed> <length>} - the first bytes of memory from {@code new Random(seed)}: {@code OK}</li>
 * <li>{@code ARM <endpoint>} - GET: a receive posted, the queue pair connected to the server's: {@code ARMED}</li>
 * <li>{@code WAITRECV} - GET: the receive's completion and the SHA-256 of the bytes it reports:
 * {@code RECV <status> <opcode> <imm> <length> <sha256>}</li>
 * <li>{@code PUT <endpoint> <address> <rkey> <length> <cookie>} - WRITE_WITH_IMM of the first bytes into the
 * server's staging, retried after a reset while the server's queue pair is not ready: {@code PUT <status>}</li>
 * </ul>
 * An endpoint is {@code qpn psn gidHex lid port mtuCode}.
 */
public final class VerbsClientProcess {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private VerbsClientProcess() {
    }

    static String format(EndpointInfo.Verbs e) {
        return e.qpn() + " " + e.psn() + " " + e.gid().toHex() + " " + e.lid() + " " + e.port() + " " + e.mtu().code();
    }

    static EndpointInfo.Verbs parse(String[] f, int at) {
        return new EndpointInfo.Verbs(Integer.parseInt(f[at]), Integer.parseInt(f[at + 1]),
                Gid.fromBytes(HexFormat.of().parseHex(f[at + 2])), Integer.parseInt(f[at + 3]),
                Integer.parseInt(f[at + 4]), Mtu.fromCode(Integer.parseInt(f[at + 5])));
    }

    static String sha256(MemorySegment s) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(s.asByteBuffer());
        return HexFormat.of().formatHex(md.digest());
    }

    public static void main(String[] args) throws Exception {
        long size = Long.parseLong(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (SoftVerbsDevice device = SoftVerbsDevice.load(); Arena arena = Arena.ofShared()) {
            VerbsTransport transport = device.openTransport(() -> Telemetry.NOOP);
            MemorySegment memory = arena.allocate(size, 4096);
            MemoryRegion region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            System.out.println("READY " + region.address() + " " + region.rkey());
            System.out.flush();
            Channel channel = null;
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                String answer;
                switch (f[0]) {
                    case "OPEN" -> {
                        if (channel != null) {
                            channel.close();
                        }
                        channel = openWithUsablePsn(transport);
                        answer = "CH " + format((EndpointInfo.Verbs) channel.localEndpoint());
                    }
                    case "FILL" -> {
                        byte[] b = new byte[Integer.parseInt(f[2])];
                        new Random(Long.parseLong(f[1])).nextBytes(b);
                        MemorySegment.copy(MemorySegment.ofArray(b), 0, memory, 0, b.length);
                        answer = "OK";
                    }
                    case "ARM" -> {
                        channel.post(WorkRequest.recv(5));
                        channel.connect(parse(f, 1));
                        answer = "ARMED";
                    }
                    case "WAITRECV" -> {
                        Completion c = pollOne(channel);
                        answer = "RECV " + c.status() + " " + c.opcode() + " " + c.immediate() + " " + c.byteLength()
                                + " " + sha256(memory.asSlice(0, c.byteLength()));
                    }
                    case "PUT" -> answer = "PUT " + put(channel, region, parse(f, 1), Long.parseLong(f[7]),
                            Integer.parseInt(f[8]), Integer.parseInt(f[9]), Integer.parseInt(f[10]));
                    default -> answer = "ERROR unknown command " + f[0];
                }
                System.out.println(answer);
                System.out.flush();
            }
            if (channel != null) {
                channel.close();
            }
            region.close();
            transport.close();
        }
    }

    /** PREPARE refuses PSN 0; the transport draws 24 random bits. */
    private static Channel openWithUsablePsn(VerbsTransport transport) throws Exception {
        while (true) {
            Channel c = transport.openChannel(ChannelOptions.DEFAULT);
            if (((EndpointInfo.Verbs) c.localEndpoint()).psn() != 0) {
                return c;
            }
            c.close();
        }
    }

    private static Completion pollOne(Channel channel) {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (channel.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within " + WAIT);
            }
            Thread.onSpinWait();
        }
        return out[0];
    }

    /** As a real client: the server's queue pair may not be in RTR yet; reset, connect again and retry. */
    private static WcStatus put(Channel channel, MemoryRegion region, EndpointInfo.Verbs server, long address, int rkey,
            int length, int cookie) throws Exception {
        WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(region, 0, length), address, rkey, cookie);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            channel.connect(server);
            BatchResult r = channel.submit(List.of(write), WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            Completion c = r.completions().get(0);
            if (c.isSuccess() || (c.status() != WcStatus.RETRY_EXC_ERR && c.status() != WcStatus.RNR_RETRY_EXC_ERR)
                    || System.nanoTime() > deadline) {
                return c.status();
            }
            channel.reset();
            Thread.sleep(1);
        }
    }
}
