package org.objrdma.verbs.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * The software device across processes, measured in one run (issue 20):
 * <ol>
 * <li>the verbs transport's RDMA WRITE and READ of 64 MiB from this JVM into a second JVM (median of
 * {@code iters} single-WR transfers, post to completion);</li>
 * <li>perftest's {@code ib_write_bw} / {@code ib_read_bw} between two processes on the same device, 64 MiB
 * messages (its "BW average");</li>
 * <li>{@code MemorySegment.copy} of 64 MiB in this process (a memcpy), the reference for what the device
 * itself costs.</li>
 * </ol>
 * Prints the transport/perftest ratios (aim at least 0.9) and device/memcpy. Run by {@code bench.sh xp};
 * not part of the tests. Bandwidths are in MiB/s (2^20 bytes per second), as perftest reports them.
 */
public final class CrossProcessBench {
    static final int SIZE = 64 << 20;

    private CrossProcessBench() {
    }

    public static String format(EndpointInfo.Verbs e) {
        return e.qpn() + " " + e.psn() + " " + e.gid().toHex() + " " + e.lid() + " " + e.port() + " " + e.mtu().code();
    }

    public static EndpointInfo.Verbs parse(String[] f, int at) {
        return new EndpointInfo.Verbs(Integer.parseInt(f[at]), Integer.parseInt(f[at + 1]),
                Gid.fromBytes(HexFormat.of().parseHex(f[at + 2])), Integer.parseInt(f[at + 3]),
                Integer.parseInt(f[at + 4]), Mtu.fromCode(Integer.parseInt(f[at + 5])));
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer();
            return;
        }
        int iters = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        double[] java = javaTransport(iters);
        double perfWrite = perftest("ib_write_bw", iters);
        double perfRead = perftest("ib_read_bw", iters);
        double copy = memcpy(iters);
        System.out.println();
        System.out.printf(Locale.ROOT, "64 MiB, two processes on softrc0, %d transfers each (MiB/s)%n", iters);
        System.out.printf(Locale.ROOT, "WRITE  verbs transport (JVM->JVM) %9.0f   ib_write_bw %9.0f   ratio %.3f  (aim >= 0.9: %s)%n",
                java[0], perfWrite, java[0] / perfWrite, java[0] / perfWrite >= 0.9 ? "met" : "MISSED");
        System.out.printf(Locale.ROOT, "READ   verbs transport (JVM->JVM) %9.0f   ib_read_bw  %9.0f   ratio %.3f  (aim >= 0.9: %s)%n",
                java[1], perfRead, java[1] / perfRead, java[1] / perfRead >= 0.9 ? "met" : "MISSED");
        System.out.printf(Locale.ROOT, "device cross-process vs memcpy: MemorySegment.copy %9.0f   ib_write_bw/copy %.3f   ib_read_bw/copy %.3f%n",
                copy, perfWrite / copy, perfRead / copy);
    }

    /** The second JVM: 64 MiB open to remote read and write, one queue pair connected to the parent's. */
    static void peer() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ComponentFixture fixture = ComponentFixture.software(); Arena arena = Arena.ofShared()) {
            Transport t = fixture.transport();
            MemoryRegion region = t.register(arena.allocate(SIZE, 4096),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            Channel ch = t.openChannel(ChannelOptions.DEFAULT);
            System.out.println("PEER " + format((EndpointInfo.Verbs) ch.localEndpoint()) + " " + region.address() + " "
                    + region.rkey());
            System.out.flush();
            ch.connect(parse(in.readLine().split(" "), 0));
            System.out.println("CONNECTED");
            System.out.flush();
            while (in.readLine() != null) {
                // serve until the parent closes our input
            }
            ch.close();
            region.close();
        }
    }

    static double[] javaTransport(int iters) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-Dobjrdma.softverbs.library=" + System.getProperty("objrdma.softverbs.library"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), CrossProcessBench.class.getName(), "peer");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        try (ComponentFixture fixture = ComponentFixture.software(); Arena arena = Arena.ofShared()) {
            BufferedReader from = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter to = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
            String[] f = from.readLine().split(" ");
            EndpointInfo.Verbs remote = parse(f, 1);
            long remoteAddr = Long.parseLong(f[7]);
            int rkey = Integer.parseInt(f[8]);
            Transport t = fixture.transport();
            MemoryRegion local = t.register(arena.allocate(SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
            local.segment().fill((byte) 0x5a);
            Channel ch = t.openChannel(ChannelOptions.DEFAULT);
            ch.connect(remote);
            to.println(format((EndpointInfo.Verbs) ch.localEndpoint()));
            if (!"CONNECTED".equals(from.readLine())) {
                throw new IllegalStateException("peer JVM did not connect");
            }
            double write = median(iters + 1, () -> transfer(ch, WorkRequest.write(1, ScatterGatherEntry.of(local),
                    remoteAddr, rkey)));
            double read = median(iters + 1, () -> transfer(ch, WorkRequest.read(2, ScatterGatherEntry.of(local),
                    remoteAddr, rkey)));
            ch.close();
            local.close();
            to.close();
            p.waitFor();
            return new double[] {write, read};
        } finally {
            p.destroyForcibly();
        }
    }

    interface Timed {
        long nanos() throws Exception;
    }

    /** MiB/s of the median run; the first run warms up and is dropped. */
    static double median(int runs, Timed t) throws Exception {
        long[] ns = new long[runs - 1];
        t.nanos();
        for (int i = 0; i < ns.length; i++) {
            ns[i] = t.nanos();
        }
        Arrays.sort(ns);
        return (SIZE / (double) (1 << 20)) / (ns[ns.length / 2] / 1e9);
    }

    static long transfer(Channel ch, WorkRequest wr) throws Exception {
        long t0 = System.nanoTime();
        ch.post(wr);
        Completion[] out = new Completion[1];
        while (ch.poll(out) == 0) {
            Thread.onSpinWait();
        }
        long dt = System.nanoTime() - t0;
        if (out[0].status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("transfer failed: " + out[0]);
        }
        return dt;
    }

    static final Pattern BW_ROW = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+[0-9.]+\\s*$");

    /** perftest's BW average (MiB/s) for 64 MiB messages between two processes. */
    static double perftest(String tool, int iters) throws Exception {
        String lib = Path.of(System.getProperty("objrdma.softverbs.library")).getParent().toString();
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String[] common = {"-d", "softrc0", "-p", Integer.toString(port), "-s", Integer.toString(SIZE), "-n",
            Integer.toString(iters)};
        ProcessBuilder server = new ProcessBuilder(concat("/usr/bin/" + tool, common)).redirectErrorStream(true);
        server.environment().put("LD_LIBRARY_PATH", lib);
        Process sp = server.start();
        Thread.sleep(300);
        String[] clientCmd = concat("/usr/bin/" + tool, common);
        clientCmd = Arrays.copyOf(clientCmd, clientCmd.length + 1);
        clientCmd[clientCmd.length - 1] = "127.0.0.1";
        ProcessBuilder client = new ProcessBuilder(clientCmd).redirectErrorStream(true);
        client.environment().put("LD_LIBRARY_PATH", lib);
        Process cp = client.start();
        String out = new String(cp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        cp.waitFor();
        sp.getInputStream().readAllBytes();
        sp.waitFor();
        Matcher m = BW_ROW.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException(tool + " printed no result:\n" + out);
        }
        return Double.parseDouble(m.group(4));
    }

    static String[] concat(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    static double memcpy(int iters) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(SIZE, 4096);
            MemorySegment b = arena.allocate(SIZE, 4096);
            a.fill((byte) 1);
            b.fill((byte) 2);
            return median(iters + 1, () -> {
                long t0 = System.nanoTime();
                MemorySegment.copy(a, 0, b, 0, SIZE);
                return System.nanoTime() - t0;
            });
        }
    }
}
