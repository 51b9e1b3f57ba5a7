package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * A peer process killed in the middle of large WRITEs: the survivor reports a bounded, named failure, never
 * a success for the interrupted request, and keeps no thread, connection or region of the dead peer.
 */
class PeerProcessKillTest {

    private static final int PEER_MIB = 256;
    private static final int WRITE_BYTES = 64 << 20;
    private static final Duration KEEPALIVE_TIMEOUT = Duration.ofMillis(1500);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killedPeerFailsOutstandingWorkWithinTheKeepaliveBound() throws Exception {
        Process peer = startPeer();
        try (Arena arena = Arena.ofShared();
             TcpTransport survivor = TcpTransport.start(TcpSettings.loopbackDefaults()
                     .withTimes(Duration.ofMillis(250), KEEPALIVE_TIMEOUT, Duration.ofMillis(100)), () -> Telemetry.NOOP)) {
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("READY ")) {
                fail("peer did not start: " + line);
            }
            String[] f = line.split(" ");
            EndpointInfo.Tcp remote = new EndpointInfo.Tcp(new InetSocketAddress(f[1], Integer.parseInt(f[2])),
                    Long.parseLong(f[3]), HexFormat.of().parseHex(f[4]));
            long remoteAddress = Long.parseLong(f[5]);
            int rkey = Integer.parseInt(f[6]);

            MemorySegment source = arena.allocate(WRITE_BYTES, 4096);
            source.fill((byte) 0x42);
            MemoryRegion src = survivor.register(source, EnumSet.of(Access.LOCAL_WRITE));
            Channel channel = survivor.openChannel(ChannelOptions.DEFAULT);
            // one-sided: the peer only registered memory and opened a channel, it never connects back
            channel.connect(remote);
            String threadPrefix = survivor.threadPrefix() + "-ch" + channel.id();
            assertTrue(threadCount(threadPrefix) == 2, "reader and writer run");

            ScatterGatherEntry sge = ScatterGatherEntry.of(src);
            long wrId = 0;
            channel.post(WorkRequest.write(++wrId, sge, remoteAddress, rkey));
            channel.post(WorkRequest.write(++wrId, sge, remoteAddress, rkey));
            Completion[] one = new Completion[1];
            List<Completion> afterKill = new ArrayList<>();
            long killedAt = 0;
            long failedAt = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                if (channel.poll(one) == 0) {
                    Thread.onSpinWait();
                    if (killedAt != 0 && channel.state() == ChannelState.ERROR && afterKill.size() >= 1
                            && System.nanoTime() - killedAt > TimeUnit.MILLISECONDS.toNanos(200)) {
                        break;
                    }
                    continue;
                }
                Completion c = one[0];
                if (killedAt == 0) {
                    assertEquals(WcStatus.SUCCESS, c.status(), "writes before the kill succeed");
                    // a write is streaming right now: kill the peer under it
                    peer.destroyForcibly();
                    killedAt = System.nanoTime();
                    continue;
                }
                afterKill.add(c);
                if (!c.isSuccess()) {
                    failedAt = failedAt == 0 ? System.nanoTime() : failedAt;
                    continue;
                }
                // only a write the peer acknowledged before it died may still report success
                assertTrue(afterKill.stream().allMatch(Completion::isSuccess), "no success after a failure");
                channel.post(WorkRequest.write(++wrId, sge, remoteAddress, rkey));
            }
            assertTrue(killedAt != 0, "no write completed before the kill");
            long failedAfterMillis = TimeUnit.NANOSECONDS.toMillis((failedAt == 0 ? System.nanoTime() : failedAt) - killedAt);
            Completion firstFailure = afterKill.stream().filter(c -> !c.isSuccess()).findFirst()
                    .orElseThrow(() -> new AssertionError("no failure after the kill; completions " + afterKill));
            assertEquals(WcStatus.RETRY_EXC_ERR, firstFailure.status(), () -> "first failure " + firstFailure);
            assertTrue(failedAfterMillis < KEEPALIVE_TIMEOUT.toMillis() + 5000,
                    "failure took " + failedAfterMillis + " ms");
            int first = afterKill.indexOf(firstFailure);
            for (Completion c : afterKill.subList(first + 1, afterKill.size())) {
                assertEquals(WcStatus.WR_FLUSH_ERR, c.status(), "later requests are flushed");
            }
            assertEquals(ChannelState.ERROR, channel.state());
            System.out.println("peer killed mid-WRITE: first failure " + firstFailure.status() + " (vendor "
                    + firstFailure.vendorError() + ") within " + failedAfterMillis + " ms; completions after the kill: "
                    + afterKill.stream().map(c -> c.status().name()).toList());

            // nothing of the dead peer is left on the survivor
            assertEquals(0, survivor.connectionCount(), "connection gone");
            assertEquals(0, threadCount(threadPrefix), "reader and writer stopped");
            channel.close();
            assertEquals(0, survivor.channelCount());
            assertEquals(1, survivor.regionCount(), "only the survivor's own region");
            src.close();
            assertEquals(0, survivor.regionCount());
            assertFalse(peer.isAlive());
        } finally {
            peer.destroyForcibly();
            peer.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static long threadCount(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    private static Process startPeer() throws Exception {
        String java = ProcessHandle.current().info().command().orElse(
                System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-cp", classpath, PeerProcess.class.getName(), Integer.toString(PEER_MIB));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }
}
