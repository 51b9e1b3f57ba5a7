package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.objrdma.verbs.testsupport.RdmaCoreTools;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The software device spans processes: programs nobody here wrote, rdma-core's {@code ibv_rc_pingpong} and
 * perftest's {@code ib_write_bw} / {@code ib_read_bw}, run as server and client in two processes on
 * {@code softrc0} and move their bytes through it; and the device's own two-process C test
 * ({@code softverbs_xp_test}: every opcode byte-checked, the responder-side errors, a killed peer).
 */
class CrossProcessToolsTest {
    static final Pattern LOCAL_QPN = Pattern.compile("local address:\\s+LID 0x[0-9a-f]+, QPN 0x([0-9a-f]+)");
    static final Pattern BW_ROW = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+[0-9.]+\\s*$");

    /**
     * No retry here: a SEND that reaches the peer's queue pair before its RTR is dropped by the device and the
     * sender's own retry (retry_cnt 7, timeout 14 as pingpong sets them) delivers it, as on an HCA.
     */
    @Test
    void rcPingpongServerAndClientInTwoProcesses() throws Exception {
        String pp = RdmaCoreTools.require("ibv_rc_pingpong", "ibverbs-utils");
        String port = Integer.toString(RdmaCoreTools.freePort());
        RdmaCoreTools.Run server = RdmaCoreTools.start(pp, "-d", "softrc0", "-p", port, "-n", "500", "-c");
        RdmaCoreTools.Run client = null;
        try {
            RdmaCoreTools.awaitListening(Integer.parseInt(port), server);  // pingpong's client does not retry
            client = RdmaCoreTools.start(pp, "-d", "softrc0", "-p", port, "-n", "500", "-c", "127.0.0.1");
            String cout = client.finish(30);
            String sout = server.finish(30);
            assertEquals(0, client.exitValue(), cout);
            assertEquals(0, server.exitValue(), sout);
            assertTrue(sout.contains("500 iters in"), sout);
            assertTrue(!sout.contains("invalid data"), sout);
            assertNotEquals(qpn(sout), qpn(cout), "both sides got the same QPN: the client talked to a twin of itself");
        } finally {
            server.kill();
            if (client != null) {
                client.kill();
            }
        }
    }

    static String qpn(String out) {
        Matcher m = LOCAL_QPN.matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }

    void perftest(String tool) throws Exception {
        perftest(tool, Map.of());
    }

    /** Server and client of {@code tool} in two processes; {@code extra} are more arguments for both. */
    String perftest(String tool, Map<String, String> env, String... extra) throws Exception {
        String bin = RdmaCoreTools.require(tool, "perftest");
        String port = Integer.toString(RdmaCoreTools.freePort());
        List<String> argList = new ArrayList<>(List.of("-d", "softrc0", "-p", port, "-s", "1048576", "-n", "100"));
        argList.addAll(List.of(extra));
        String[] args = argList.toArray(String[]::new);
        RdmaCoreTools.Run server = RdmaCoreTools.start(env, concat(bin, args));
        RdmaCoreTools.Run client = null;
        try {
            RdmaCoreTools.awaitListening(Integer.parseInt(port), server);
            client = RdmaCoreTools.start(env, concat(bin, concat("127.0.0.1", args)));
            String cout = client.finish(60);
            String sout = server.finish(60);
            assertEquals(0, client.exitValue(), cout);
            assertEquals(0, server.exitValue(), sout);
            Matcher m = BW_ROW.matcher(cout);
            assertTrue(m.find(), "no bandwidth row in:\n" + cout);
            assertEquals("1048576", m.group(1));
            assertTrue(Double.parseDouble(m.group(4)) > 0, cout);
            assertNotEquals(perftestQpn(sout, "local"), perftestQpn(sout, "remote"), sout);
            return cout;
        } finally {
            server.kill();
            if (client != null) {
                client.kill();
            }
        }
    }

    static String perftestQpn(String out, String side) {
        Matcher m = Pattern.compile(side + " address: LID (?:0x)?[0-9a-f]+ QPN (0x[0-9a-f]+)").matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }

    static String[] concat(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void ibWriteBwBetweenTwoProcesses() throws Exception {
        perftest("ib_write_bw");
    }

    @Test
    void ibReadBwBetweenTwoProcesses() throws Exception {
        perftest("ib_read_bw");
    }

    /** The index of the RoCE v2 GID ::ffff:127.0.0.1 in the device's table, read as a RoCE tool reads it. */
    static int loopbackRoceV2Index() throws Exception {
        VerbsLibrary lib = VerbsLibrary.load(SoftVerbs.library());
        try (VerbsLibrary.DeviceList list = lib.listDevices()) {
            MemorySegment ctx = lib.openDevice(list.devices().getFirst());
            try {
                for (int i = 0; i < lib.queryPort(ctx, 1).gidTableLength(); i++) {
                    var e = lib.queryGidEntry(ctx, 1, i);
                    if (e.isPresent() && e.get().type() == GidType.ROCE_V2
                            && e.get().gid().toHex().equals("00000000000000000000ffff7f000001")) {
                        return i;
                    }
                }
                throw new AssertionError("the device has no RoCE v2 GID ::ffff:127.0.0.1");
            } finally {
                lib.closeDevice(ctx);
            }
        } finally {
            lib.close();
        }
    }

    /**
     * As RoCE tools run: the port is a RoCE port ({@code SOFTVERBS_LINK_LAYER=ethernet}: link layer Ethernet,
     * LID 0, GRH required) and both sides connect by the IPv4-mapped RoCE v2 GID of the address they were given,
     * {@code -x <index>}; each prints that GID as its own and as its peer's.
     */
    void perftestByGid(String tool) throws Exception {
        int index = loopbackRoceV2Index();
        String cout = perftest(tool, Map.of("SOFTVERBS_LINK_LAYER", "ethernet"), "-x", Integer.toString(index));
        assertTrue(cout.contains("Link type       : Ethernet"), cout);
        assertTrue(Pattern.compile("GID index\\s+: " + index + "\\b").matcher(cout).find(), cout);
        Matcher gids = Pattern.compile("GID: (\\S+)").matcher(cout);
        int n = 0;
        while (gids.find()) {
            assertEquals("00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:01", gids.group(1), cout);
            n++;
        }
        assertEquals(2, n, "local and remote GID lines in:\n" + cout);
    }

    /** The stock {@code ibv_devinfo -v} prints the RoCE port's table: each GID with its RoCE version. */
    @Test
    void ibvDevinfoShowsTheGidTable() throws Exception {
        String devinfo = RdmaCoreTools.require("ibv_devinfo", "ibverbs-utils");
        RdmaCoreTools.Run run = RdmaCoreTools.start(Map.of("SOFTVERBS_LINK_LAYER", "ethernet"), devinfo, "-v");
        String out = run.finish(30);
        assertEquals(0, run.exitValue(), out);
        assertTrue(out.contains("link_layer:\t\tEthernet"), out);
        int index = loopbackRoceV2Index();
        assertTrue(out.contains("GID[  0]:\t\tfe80:0000:0000:0000:0002:c903:00ab:cdef, RoCE v1"), out);
        assertTrue(out.contains("GID[  1]:\t\tfe80::2:c903:ab:cdef, RoCE v2"), out);
        assertTrue(out.contains(String.format("GID[%3d]:\t\t::ffff:127.0.0.1, RoCE v2", index)), out);
        assertTrue(out.contains(String.format("GID[%3d]:\t\t0000:0000:0000:0000:0000:ffff:7f00:0001, RoCE v1",
                index - 1)), out);
    }

    @Test
    void ibWriteBwByRoceV2GidBetweenTwoProcesses() throws Exception {
        perftestByGid("ib_write_bw");
    }

    @Test
    void ibReadBwByRoceV2GidBetweenTwoProcesses() throws Exception {
        perftestByGid("ib_read_bw");
    }

    @Test
    void theDevicePassesItsOwnTwoProcessCTest() throws Exception {
        String binary = System.getProperty("objrdma.softverbs.xptest");
        assertTrue(binary != null && Files.isExecutable(Path.of(binary)),
                "objrdma.softverbs.xptest must name softverbs_xp_test built by build.sh, was " + binary);
        RdmaCoreTools.Run run = RdmaCoreTools.start(binary);
        String out = run.finish(120);
        assertEquals(0, run.exitValue(), out);
        assertTrue(out.contains(" 0 failed"), out);
    }
}
