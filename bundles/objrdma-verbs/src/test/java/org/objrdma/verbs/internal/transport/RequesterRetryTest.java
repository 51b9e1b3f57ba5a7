package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.bench.CrossProcessBench;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * The requester's retries of an RC queue pair, across two JVMs on the software device (the peer is
 * {@link #main}): a WRITE_WITH_IMM that reaches the peer's queue pair before its RTR is dropped and the
 * transport's queue pair (timeout 14 ~ 67 ms, retry count 7) sends it again until the peer is there; one whose
 * peer stays in INIT ends with RETRY_EXC_ERR once the retries are spent; one that finds no receive posted is
 * NAKed RNR and retried (RNR retry 7) until the receive comes.
 */
class RequesterRetryTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int SIZE = 64 << 10;

    private Process peer;
    private BufferedReader from;
    private PrintWriter to;
    private ComponentFixture fixture;
    private Arena arena;

    @BeforeEach
    void startPeer() throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        peer = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-Dobjrdma.softverbs.library=" + System.getProperty("objrdma.softverbs.library"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                RequesterRetryTest.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        from = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        to = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.UTF_8);
        fixture = ComponentFixture.software();
        arena = Arena.ofShared();
    }

    @AfterEach
    void stopPeer() throws Exception {
        to.close();
        if (!peer.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            peer.destroyForcibly();
        }
        arena.close();
        fixture.close();
    }

    /** Connects a channel here to the peer's, tells the peer when to connect and post, sends WRITE_WITH_IMM. */
    private Completion writeWithImm(int connectAfterMs, int recvAfterMs) throws Exception {
        String[] f = from.readLine().split(" ");
        EndpointInfo.Verbs remote = CrossProcessBench.parse(f, 1);
        long address = Long.parseLong(f[7]);
        int rkey = Integer.parseInt(f[8]);
        Transport t = fixture.transport();
        MemoryRegion local = t.register(arena.allocate(SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
        local.segment().fill((byte) 0x33);
        Channel ch = t.openChannel(ChannelOptions.DEFAULT);
        ch.connect(remote);
        to.println(CrossProcessBench.format((EndpointInfo.Verbs) ch.localEndpoint()) + " " + connectAfterMs + " "
                + recvAfterMs);
        assertEquals("OK", from.readLine());
        Completion c = ch.submit(java.util.List.of(WorkRequest.writeWithImm(1, ScatterGatherEntry.of(local), address,
                rkey, 0x1234)), WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS).completions().get(0);
        ch.close();
        local.close();
        return c;
    }

    @Test
    void aWriteBeforeThePeersRtrIsRetriedAndDelivered() throws Exception {
        long t0 = System.nanoTime();
        Completion c = writeWithImm(150, 0);
        assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        assertTrue(System.nanoTime() - t0 >= 100_000_000L, "delivered before the peer's RTR");
        assertEquals("RECV SUCCESS " + WcOpcode.RECV_RDMA_WITH_IMM + " 4660 " + SIZE + " 51", from.readLine());
    }

    @Test
    void aPeerThatNeverReachesRtrEndsTheRetriesWithRetryExceeded() throws Exception {
        long t0 = System.nanoTime();
        Completion c = writeWithImm(-1, 0);
        assertEquals(WcStatus.RETRY_EXC_ERR, c.status(), c.toString());
        // seven retries after the first try, each after the ACK timeout of 4.096 us * 2^14 (~67 ms)
        assertTrue(System.nanoTime() - t0 >= 7 * 67_000_000L, "gave up after " + (System.nanoTime() - t0) + " ns");
    }

    @Test
    void aWriteWithImmBeforeTheReceiveIsRnrRetriedUntilItComes() throws Exception {
        long t0 = System.nanoTime();
        Completion c = writeWithImm(0, 150);
        assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        assertTrue(System.nanoTime() - t0 >= 100_000_000L, "delivered before the receive was posted");
        assertEquals("RECV SUCCESS " + WcOpcode.RECV_RDMA_WITH_IMM + " 4660 " + SIZE + " 51", from.readLine());
    }

    /**
     * The peer JVM: prints {@code PEER <endpoint> <address> <rkey>} of a channel in INIT and {@code SIZE} bytes open
     * to remote writes; reads {@code <endpoint> <connectAfterMs> <recvAfterMs>}, answers {@code OK}, then connects
     * after that many ms (never if negative), posts a receive after the other delay and prints
     * {@code RECV <status> <opcode> <imm> <length> <first byte>} of its completion.
     */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ComponentFixture fixture = ComponentFixture.software(); Arena arena = Arena.ofShared()) {
            Transport t = fixture.transport();
            MemoryRegion region = t.register(arena.allocate(SIZE, 4096),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            Channel ch = t.openChannel(ChannelOptions.DEFAULT);
            System.out.println("PEER " + CrossProcessBench.format((EndpointInfo.Verbs) ch.localEndpoint()) + " "
                    + region.address() + " " + region.rkey());
            System.out.flush();
            String[] f = in.readLine().split(" ");
            int connectAfter = Integer.parseInt(f[6]);
            int recvAfter = Integer.parseInt(f[7]);
            System.out.println("OK");
            System.out.flush();
            if (connectAfter >= 0) {
                Thread.sleep(connectAfter);
                ch.connect(CrossProcessBench.parse(f, 0));
                Thread.sleep(recvAfter);
                ch.post(WorkRequest.recv(7));
                Completion[] out = new Completion[1];
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (ch.poll(out) == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                Completion c = out[0];
                System.out.println(c == null ? "RECV none" : "RECV " + c.status() + " " + c.opcode() + " "
                        + c.immediate() + " " + c.byteLength() + " " + region.segment().get(
                        java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
                System.out.flush();
            }
            while (in.readLine() != null) {
                // until the test closes our input
            }
            ch.close();
            region.close();
        }
    }
}
