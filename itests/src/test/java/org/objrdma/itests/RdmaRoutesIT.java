package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import javax.servlet.Servlet;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.itests.rdma.RdmaChild;
import org.objrdma.itests.rdma.RdmaChild.Answer;
import org.objrdma.itests.rdma.RdmaClientMain;
import org.objrdma.itests.rdma.VictimPool;
import org.objrdma.wire.AgentKeys;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * Issue 15's RDMA routes in the real distribution (embedded store, TCP transport, staging pool, session manager,
 * cuObject facade, S3 gateway on Pax Web), the client in a <b>second JVM</b> ({@link RdmaClientMain}: objrdma-client,
 * objrdma-wire and the standalone TCP transport on a plain class path, requests signed by the AWS SDK's
 * {@code AwsV4HttpSigner}): both protocols, every size, ranges, GetPart, UploadPart then Complete over HTTP, byte-exact
 * against a plain HTTP GET; a representative set of the error rows; the client killed (SIGKILL) mid-GET and mid-PUT
 * on both protocols, {@code objrdma.it.kills} times each (the build's default 50, 2 outside it; the {@code soak}
 * profile runs 1 000); the TCP
 * transport bundle stopped under running transfers. The full error tables are the module tests' (objrdma-s3's
 * {@code CuObjRoutesTest}, {@code RcRoutesTest}).
 *
 * <p>Sizes: the staging pool's largest buffer is 64 MiB and the gateway's cuObject chunk 8 MiB, so 64 MiB moves in
 * eight pipelined chunks and a {@value #ABOVE_STAGING}-byte transfer is larger than any staging buffer: on cuObject
 * twelve 8 MiB chunks, on RC a GET of two 64 MiB chunks through two pool buffers and a PUT into one dedicated window of
 * its size. {@code -Dobjrdma.it.big=true} adds 1.25 GiB PUTs and GETs on both protocols (cuObject, 160 chunks: the
 * GET two ranged requests of the client's 1 GiB limit, the PUT a multipart upload of two parts over cuObject, since
 * one PutObject per 1 GiB request would replace the object; RC: one session each, the PUT first refused with 429 at the configured staging
 * limits, then the limits raised through Config Admin and restored after; needs ~3 GiB free disk and ~8 GiB RAM: the
 * client JVM then gets a 4 GiB heap for the plain 1.25 GiB GET it compares with), and prints the RC times and MB/s.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaRoutesIT extends ObjRdmaTestSupport {

    private static final String AK = "RDMAITACCESSKEY00001";
    private static final String SECRET = "rdmaItSecret/0123456789abcdefghijklmnopq";
    private static final String OTHER_AK = "RDMAITOTHERKEY000002";
    private static final String OTHER_SECRET = "rdmaItOtherSecret/0123456789abcdefghijkl";
    private static final String PORT_PROPERTY = "objrdma.it.http.port";
    private static final String KILLS_PROPERTY = "objrdma.it.kills";
    private static final String BIG_PROPERTY = "objrdma.it.big";
    /** A file the kill loop appends its figures to (the failsafe configuration names one under target/). */
    private static final String TIMINGS_PROPERTY = "objrdma.it.timings";
    private static final int MIB = 1 << 20;
    private static final int BIG = 64 * MIB;
    private static final int ABOVE_STAGING = 96 * MIB;
    /** A killed PUT: two cuObject chunks, more than loopback's socket buffers hold; small to fill in the victim. */
    private static final int KILL_PUT = 16 * MIB;
    private static final long HUGE = 1280L * MIB;
    private static final Duration AUDIT = Duration.ofSeconds(150); // generous: a loaded CI machine, exec timeout 20 s

    private final List<TerminalEvent> ended = new CopyOnWriteArrayList<>();
    private ServiceRegistration<SessionTerminalListener> listener;
    private final List<RdmaChild> children = new ArrayList<>();

    @Configuration
    public Option[] config() {
        int port = freePort();
        String loopback = "127.0.0.0/8";
        return options(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "credentials",
                        AK + ":" + SECRET + "," + OTHER_AK + ":" + OTHER_SECRET),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "fsync", "false"),
                // the shared agent key of the cuObject facade is the main credential's derived key: the client's
                // openForPrincipal agent is then served in the shared-key mode and in the per-principal mode alike
                editConfigurationFilePut("etc/org.objrdma.cuobj.cfg", "agent.key",
                        AgentKeys.toHex(AgentKeys.forPrincipal(SECRET))),
                editConfigurationFilePut("etc/org.objrdma.cuobj.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "prep.timeout.ms", "10000"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "exec.timeout.ms", "20000"),
                editConfigurationFilePut("etc/org.objrdma.staging.cfg", "max.buffer.size", String.valueOf(BIG)),
                editConfigurationFilePut("etc/org.objrdma.staging.cfg", "max.bytes.per.principal", String.valueOf(512 * MIB)),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.chunk.bytes", String.valueOf(8 * MIB)),
                systemProperty(PORT_PROPERTY).value(String.valueOf(port)),
                systemProperty(KILLS_PROPERTY).value(System.getProperty(KILLS_PROPERTY, "2")),
                systemProperty(BIG_PROPERTY).value(String.valueOf(Boolean.getBoolean(BIG_PROPERTY))),
                systemProperty(TIMINGS_PROPERTY).value(new File("target/kill-loop-times.log").getAbsolutePath()),
                // the client JVM runs on the failsafe JVM's class path (objrdma-client, -wire, -transport-tcp, the SDK)
                systemProperty(RdmaChild.CLASSPATH_PROPERTY).value(System.getProperty("java.class.path")));
    }

    @Before
    public void awaitGateway() throws Exception {
        waitForService(ObjectStore.class, null);
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        waitForService(CuObjServer.class, null);
        waitForService(SessionManager.class, null);
        listener = bundleContext.registerService(SessionTerminalListener.class, ended::add, null);
    }

    @After
    public void stopChildren() throws Exception {
        for (RdmaChild c : children) {
            c.kill();
        }
        if (listener != null) {
            listener.unregister();
        }
    }

    private RdmaChild child() throws Exception {
        RdmaChild c = RdmaChild.start(Integer.getInteger(PORT_PROPERTY), AK, SECRET, new File("client-jvm.log"),
                Boolean.getBoolean(BIG_PROPERTY) ? "4g" : "768m");
        children.add(c);
        ok(c.call("cred other " + OTHER_AK + " " + OTHER_SECRET));
        return c;
    }

    private static Answer ok(Answer a) {
        assertEquals(a.line(), "OK", a.kind());
        return a;
    }

    private static void assertRow(Answer a, int status, String code) {
        assertEquals(a.line(), status, a.status());
        assertEquals(a.line(), code, a.get("code"));
    }

    private static String crc(byte[] data) {
        return RdmaClientMain.crc(MemorySegment.ofArray(data), data.length);
    }

    private static String crc(int size, long seed) {
        return crc(RdmaClientMain.random(size, seed));
    }

    private void ensureBucket(RdmaChild c) throws Exception {
        Answer a = c.call("httpput /bkt - 0 0");
        assertTrue(a.line(), a.status() == 200 || "BucketAlreadyOwnedByYou".equals(a.get("code")));
    }

    // ------------------------------------------------------------------ the audit

    private StagingPool pool() {
        return waitForService(StagingPool.class, null);
    }

    private SessionManager sessions() {
        return waitForService(SessionManager.class, null);
    }

    private void awaitQuiet() throws InterruptedException {
        await("staging lent 0", AUDIT, () -> pool().stats().borrowed() == 0);
        await("no live session", AUDIT, () -> sessions().snapshot().isEmpty());
        await("no facade channel allocated", AUDIT, () -> waitForService(CuObjServer.class, null).allocatedChannelCount() == 0);
    }

    private List<TerminalEvent> endsOf(String session) {
        return ended.stream().filter(e -> e.sessionId().hex().equals(session)).toList();
    }

    /** Waits for the session's one terminal event; a second one would be caught by {@link #assertEachEndedOnce}. */
    private TerminalEvent awaitEnd(String session) throws InterruptedException {
        await("session " + session + " ended", AUDIT, () -> !endsOf(session).isEmpty());
        return endsOf(session).get(0);
    }

    private void assertEachEndedOnce() {
        Map<String, Integer> count = new ConcurrentHashMap<>();
        ended.forEach(e -> count.merge(e.sessionId().hex(), 1, Integer::sum));
        count.forEach((s, n) -> assertEquals("terminal events of session " + s, 1, (int) n));
    }

    // ------------------------------------------------------------------ 1. every size, both protocols

    @Test
    public void bothProtocolsMoveEverySizeByteExact() throws Exception {
        RdmaChild c = child();
        ensureBucket(c);
        int[] sizes = {1, 4096, BIG, ABOVE_STAGING};
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            String want = crc(size, 10 + i);
            ok(c.call("httpput /bkt/o" + size + " - " + size + " " + (10 + i)));
            assertEquals("plain HTTP GET", want, ok(c.call("httpget /bkt/o" + size + " -")).get("bodycrc"));
            Answer cu = ok(c.call("get cuobj /bkt/o" + size + " - " + size));
            assertEquals(cu.line(), "200", cu.get("x-amz-rdma-reply"));
            assertEquals(cu.line(), String.valueOf(size), cu.get("x-amz-rdma-bytes-transferred"));
            assertEquals(cu.line(), want, cu.get("crc"));
            Answer cuPut = ok(c.call("put cuobj /bkt/cu" + size + " - " + size + " " + (10 + i)));
            assertEquals(cuPut.line(), want, cuPut.get("x-amz-checksum-crc32c"));
            assertEquals("cuObject PUT stored byte-exact", want, ok(c.call("httpget /bkt/cu" + size + " -")).get("bodycrc"));
            // above the staging buffer (ABOVE_STAGING) an RC GET moves in two chunks, an RC PUT gets a dedicated window
            Answer rc = ok(c.call("get rc /bkt/o" + size + " - " + size));
            assertEquals(rc.line(), "true:SUCCESS", rc.get("outcome"));
            assertEquals(rc.line(), want, rc.get("crc"));
            Answer rcPut = ok(c.call("put rc /bkt/rc" + size + " - " + size + " " + (10 + i)));
            assertEquals("strict: the client's write completed too", "true:SUCCESS", rcPut.get("outcome"));
            assertEquals("RC PUT stored byte-exact", want, ok(c.call("httpget /bkt/rc" + size + " -")).get("bodycrc"));
        }
        // 0 B: cuObject declines it (the GET answers with the empty body, reply 501); RC refuses size 0 (400)
        ok(c.call("httpput /bkt/empty - 0 0"));
        Answer empty = c.call("get cuobj /bkt/empty - 16");
        assertEquals(empty.line(), 200, empty.status());
        assertEquals(empty.line(), "501", empty.get("x-amz-rdma-reply"));
        assertRow(c.call("rcsize /bkt/empty 0"), 400, "InvalidRdmaRequest");
        if (Boolean.getBoolean(BIG_PROPERTY)) {
            hugeRcTransfers(c, hugeCuObjectTransfers(c));
        }
        awaitQuiet();
        assertEachEndedOnce();
    }

    /** @return the CRC32C of {@code /bkt/huge}, as the client computed it over the memory it PUT from */
    private String hugeCuObjectTransfers(RdmaChild c) throws Exception {
        String want = ok(c.call("put cuobj /bkt/huge - " + HUGE + " 77")).get("crc");
        assertEquals(want, ok(c.call("httpget /bkt/huge -")).get("bodycrc"));
        assertEquals(want, ok(c.call("get cuobj /bkt/huge - " + HUGE)).get("crc"));
        return want;
    }

    /**
     * 1.25 GiB over RC: refused (429) while the staging limits (1 GiB in all, 512 MiB per principal here) cannot hold
     * the PUT's window, then moved both ways once the limits are raised through Config Admin, and the limits restored.
     */
    private void hugeRcTransfers(RdmaChild c, String want) throws Exception {
        assertRow(c.call("put rc /bkt/hugerc - " + HUGE + " 77"), 429, "RdmaResourceLimit");
        assertEquals(404, c.call("http HEAD /bkt/hugerc - -").status());
        Map<String, Object> staging = patchConfig("org.objrdma.staging", Map.of("max.total.bytes", 3L << 30,
                "max.bytes.per.principal", 2L << 30));
        Map<String, Object> session = patchConfig("org.objrdma.session", Map.of("max.user.staging.bytes", 2L << 30));
        try {
            waitForService(StagingPool.class, "(max.total.bytes=" + (3L << 30) + ")");
            await("the session manager runs with the raised limit", AUDIT,
                    () -> sessions().limits().maxUserStagingBytes() == 2L << 30);
            long t0 = System.nanoTime();
            Answer put = ok(c.call("put rc /bkt/hugerc - " + HUGE + " 77"));
            long t1 = System.nanoTime();
            assertEquals(put.line(), "true:SUCCESS", put.get("outcome"));
            assertEquals("RC PUT of 1.25 GiB stored byte-exact", want, ok(c.call("httpget /bkt/hugerc -")).get("bodycrc"));
            long t2 = System.nanoTime();
            Answer get = ok(c.call("get rc /bkt/huge - " + HUGE));
            long t3 = System.nanoTime();
            assertEquals(get.line(), "true:SUCCESS", get.get("outcome"));
            assertEquals("RC GET of 1.25 GiB byte-exact", want, get.get("crc"));
            System.out.printf("RdmaRoutesIT big RC: PUT %d B in %d ms (%.0f MB/s), GET %d B in %d ms (%.0f MB/s),"
                    + " control plane and client memory fill included%n", HUGE, (t1 - t0) / 1_000_000,
                    HUGE / ((t1 - t0) / 1e9) / 1e6, HUGE, (t3 - t2) / 1_000_000, HUGE / ((t3 - t2) / 1e9) / 1e6);
        } finally {
            restoreConfig("org.objrdma.session", session);
            restoreConfig("org.objrdma.staging", staging);
            waitForService(StagingPool.class, "(!(max.total.bytes=" + (3L << 30) + "))");
        }
    }

    /** Sets {@code changes} on configuration {@code pid}, keeping its other properties; returns what it was. */
    private Map<String, Object> patchConfig(String pid, Map<String, Object> changes) throws Exception {
        org.osgi.service.cm.Configuration conf = waitForService(org.osgi.service.cm.ConfigurationAdmin.class, null)
                .getConfiguration(pid, "?");
        Map<String, Object> before = new java.util.HashMap<>();
        java.util.Hashtable<String, Object> next = new java.util.Hashtable<>();
        if (conf.getProperties() != null) {
            for (var keys = conf.getProperties().keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                before.put(k, conf.getProperties().get(k));
                next.put(k, conf.getProperties().get(k));
            }
        }
        next.putAll(changes);
        conf.update(next);
        return before;
    }

    private void restoreConfig(String pid, Map<String, Object> before) throws Exception {
        waitForService(org.osgi.service.cm.ConfigurationAdmin.class, null).getConfiguration(pid, "?")
                .update(new java.util.Hashtable<>(before));
    }

    @Test
    public void rangesPartsAndUploadPartThenCompleteOverHttp() throws Exception {
        RdmaChild c = child();
        ensureBucket(c);
        byte[] object = RdmaClientMain.random(BIG, 30);
        ok(c.call("httpput /bkt/ranged - " + BIG + " 30"));
        long from = 8L * MIB - 5;
        int len = 2 * 8 * MIB + 11; // crosses two chunk boundaries
        String last = String.valueOf(from + len - 1);
        String want = crc(Arrays.copyOfRange(object, (int) from, (int) from + len));
        assertEquals(want, ok(c.call("httpget /bkt/ranged - --range=" + from + "-" + last)).get("bodycrc"));
        Answer cu = ok(c.call("get cuobj /bkt/ranged - " + len + " --range=" + from + "-" + last));
        assertEquals(cu.line(), 206, cu.status());
        assertEquals(cu.line(), "206", cu.get("x-amz-rdma-reply"));
        assertEquals(cu.line(), "bytes_" + from + "-" + last + "/" + BIG, cu.get("content-range"));
        assertEquals(want, cu.get("crc"));
        Answer rc = ok(c.call("get rc /bkt/ranged - " + len + " --offset=" + from));
        assertEquals(want, rc.get("crc"));

        // UploadPart: part 1 over cuObject, part 2 over RC, Complete over HTTP
        int p1 = 5 * MIB + 3;
        int p2 = 3 * MIB + 7;
        byte[] whole = c.uploadTwoPartsThenCompleteOverHttp("/bkt/mp", "cuobj", p1, 31, "rc", p2, 32);
        assertEquals(crc(whole), ok(c.call("httpget /bkt/mp -")).get("bodycrc"));

        // GetPart over both protocols: 206 + Content-Range on cuObject, Content-Range in the RC PREPARE answer
        String part2 = crc(p2, 32);
        Answer cuPart = ok(c.call("get cuobj /bkt/mp partNumber=2 " + p2));
        assertEquals(cuPart.line(), 206, cuPart.status());
        assertEquals(cuPart.line(), "bytes_" + p1 + "-" + (p1 + p2 - 1) + "/" + (p1 + p2), cuPart.get("content-range"));
        assertEquals(cuPart.line(), "2", cuPart.get("x-amz-mp-parts-count"));
        assertEquals(part2, cuPart.get("crc"));
        Answer rcPart = ok(c.call("get rc /bkt/mp partNumber=2 " + p2));
        assertEquals(rcPart.line(), "bytes_" + p1 + "-" + (p1 + p2 - 1) + "/" + (p1 + p2), rcPart.get("prepareRange"));
        assertEquals(part2, rcPart.get("crc"));
        awaitQuiet();
        assertEachEndedOnce();
    }

    // ------------------------------------------------------------------ 2. error rows

    /**
     * In Karaf: memory of another principal's agent named in a request (refused, the memory untouched, nothing
     * stored), a READY from another principal (404, the session untouched, then the owner's READY works), an unsigned
     * {@code x-amz-rdma-*} header (403), a malformed token (400 InvalidRDMAToken, no reply header), a size above
     * 2^31-1 (413). The other rows are the module tests'.
     */
    @Test
    public void errorRows() throws Exception {
        RdmaChild c = child();
        ensureBucket(c);
        ok(c.call("httpput /bkt/e - 4096 40"));
        String zeros = crc(new byte[4096]);

        // the main principal's request names memory of the other principal's agent (keyed with the other's
        // secret): the gateway dials it with the main principal's key (shared or derived) and the agent refuses
        Answer foreignGet = c.call("get cuobj /bkt/e - 4096 --agent=other");
        assertEquals(foreignGet.line(), "FAIL", foreignGet.kind());
        assertTrue(foreignGet.line(), foreignGet.status() == 502 || foreignGet.status() == 403);
        assertEquals("the foreign memory was not written", zeros, foreignGet.get("crc"));
        Answer foreignPut = c.call("put cuobj /bkt/foreign - 4096 41 --agent=other");
        assertEquals(foreignPut.line(), "FAIL", foreignPut.kind());
        assertTrue(foreignPut.line(), foreignPut.status() == 500 || foreignPut.status() == 403);
        assertEquals("nothing stored", 404, c.call("http HEAD /bkt/foreign - -").status());

        // READY (and CANCEL) from another principal: 404 / 204, the session untouched; the owner's READY works
        c.send("rcforeign /bkt/e 4096 --other=other");
        Answer mid = c.await("MID", Duration.ofSeconds(60));
        assertTrue(mid.line(), mid.get("foreign").contains("status=404") && mid.get("foreign").contains("NoSuchRdmaSession"));
        assertEquals(mid.line(), "204", mid.get("foreignCancel"));
        String session = mid.get("session");
        SessionSnapshot snap = sessions().snapshot().stream().filter(s -> s.sessionId().hex().equals(session))
                .findFirst().orElseThrow(() -> new AssertionError("the foreign READY/CANCEL ended " + session));
        assertEquals(SessionState.PREPARED, snap.state());
        assertTrue(endsOf(session).isEmpty());
        c.send("go");
        Answer owner = ok(c.await("OK|FAIL", Duration.ofSeconds(60)));
        assertEquals(crc(4096, 40), owner.get("crc"));
        assertEquals(TerminalReason.COMPLETED, awaitEnd(session).reason());

        Answer unsigned = c.call("unsigned /bkt/e 4096");
        assertRow(unsigned, 403, "AccessDenied");
        assertEquals(zeros, unsigned.get("crc"));
        Answer bad = c.call("badtoken /bkt/e");
        assertRow(bad, 400, "InvalidRDMAToken");
        assertNull(bad.line(), bad.get("x-amz-rdma-reply"));
        assertRow(c.call("rcsize /bkt/e " + (1L << 31)), 413, "EntityTooLarge");
        awaitQuiet();
        assertEachEndedOnce();
    }

    // ------------------------------------------------------------------ 3. the client killed mid-transfer

    /**
     * SIGKILL of a client JVM in the middle of a GET (64 MiB) and a PUT (16 MiB) on both protocols, {@code
     * objrdma.it.kills} times each ({@code --slow} makes the victim freeze itself mid-transfer, so the kill lands
     * there every time; the victims come from a {@link VictimPool}: started ahead, from a trained AOT cache). After
     * every kill the audit: staging lent 0, no session, no server channel but the facade's kept agent connections,
     * no facade buffer, the store's {@code tmp/} empty, each session ended exactly once (an RC one not as completed),
     * the request answered as an error and counted once ({@code S3_ERRORS} and the code: cuObject {@code
     * RDMATransferFailed}, 502 GET / 500 PUT; RC {@code RdmaTransferFailed} 502; the answer goes to a dead socket),
     * threads and fds of the Karaf JVM back to the baseline taken after the first round (+3 / +4); a killed PUT of
     * a new key leaves no object, a killed overwrite leaves the old bytes.
     */
    @Test
    public void clientKilledMidGetAndMidPut() throws Exception {
        int kills = Integer.getInteger(KILLS_PROPERTY, 2);
        RdmaChild auditor = child();
        ensureBucket(auditor);
        ok(auditor.call("httpput /bkt/big - " + BIG + " 50"));
        ok(auditor.call("httpput /bkt/keep - 4096 51"));
        String keep = crc(4096, 51);
        TelemetryView counters = waitForService(TelemetryView.class, null);
        KillAudit audit = new KillAudit(counters);
        long t0 = System.nanoTime();
        try (VictimPool victims = new VictimPool(Integer.getInteger(PORT_PROPERTY), AK, SECRET,
                new File("client-jvm.log"), "512m", new File(".").toPath(), List.of(
                        "get cuobj /bkt/keep - 4096", "put cuobj /bkt/trained - " + KILL_PUT + " 53",
                        "get rc /bkt/keep - 4096", "put rc /bkt/trained - " + KILL_PUT + " 53",
                        "get rc /bkt/big - " + BIG))) {
            long trained = System.nanoTime();
            awaitQuiet();
            for (int i = 0; i < kills; i++) {
                for (String proto : new String[] {"cuobj", "rc"}) {
                    killMid("get", proto, "big", victims.next(), audit);
                    boolean overwrite = i % 2 == 1;
                    String key = overwrite ? "keep" : "killed-" + proto + "-" + i;
                    killMid("put", proto, key, victims.next(), audit);
                    Answer after = auditor.call("httpget /bkt/" + key + " -");
                    if (overwrite) {
                        assertEquals("the overwritten key keeps its old bytes", keep, after.get("bodycrc"));
                    } else {
                        assertEquals("no partial object: " + after.line(), 404, after.status());
                    }
                }
                if (i == 0) {
                    audit.baseline();
                }
            }
            long done = System.nanoTime();
            timing("kills=" + kills + " per protocol and direction, aot cache=" + victims.cached() + ": training "
                    + (trained - t0) / 1_000_000 + " ms, " + 4 * kills + " kills in " + (done - trained) / 1_000_000
                    + " ms (" + (done - trained) / 1_000_000 / Math.max(1, 4 * kills) + " ms each)");
        }
        // the gateway still serves after all that
        assertEquals(crc(BIG, 50), ok(auditor.call("get rc /bkt/big - " + BIG)).get("crc"));
        assertEquals(crc(BIG, 50), ok(auditor.call("get cuobj /bkt/big - " + BIG)).get("crc"));
        awaitQuiet();
        assertEachEndedOnce();
    }

    /** One kill: {@code op} ("get" or "put") of {@code key} on {@code proto} frozen mid-transfer, SIGKILL, the audit. */
    private void killMid(String op, String proto, String key, RdmaChild victim, KillAudit audit) throws Exception {
        KillAudit.Before before = audit.before();
        long lent = pool().stats().borrowed();
        victim.send(op + " " + proto + " /bkt/" + key + " - " + (op.equals("get") ? BIG + "" : KILL_PUT + " 52")
                + " --slow --warm=/bkt/keep");
        Answer started = victim.await("STARTED", Duration.ofSeconds(60));
        awaitInFlight(proto, started, lent);
        victim.kill();
        awaitQuiet();
        if (proto.equals("rc")) {
            TerminalEvent end = awaitEnd(started.get("session"));
            assertNotEquals("killed mid-transfer, not completed: " + end, TerminalReason.COMPLETED, end.reason());
        }
        // cuObject: the facade ended the killed request's calls in flight with an error; both: the gateway's error
        // answer (to a dead socket) counted once with its code, a moment after it was written
        audit.check(op + " " + proto + " " + key, before, proto.equals("cuobj") ? "RDMATransferFailed"
                : "RdmaTransferFailed", proto.equals("cuobj"));
        assertEachEndedOnce();
    }

    /** The audit after each kill, in the Karaf JVM; see {@link #clientKilledMidGetAndMidPut}. */
    private final class KillAudit {
        private static final int THREAD_SLACK = 3;
        private static final int FD_SLACK = 4;
        private final TelemetryView counters;
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        private final Path storeTmp;
        private int baseThreads = -1;
        private int baseFds = -1;

        record Before(long s3Errors, long byCode, long cuObjErrors) {
        }

        KillAudit(TelemetryView counters) {
            this.counters = counters;
            ServiceReference<ObjectStore> store = bundleContext.getServiceReference(ObjectStore.class);
            this.storeTmp = Path.of(String.valueOf(store.getProperty("objrdma.store.root")), "tmp");
            assertTrue("the file store's tmp/ at " + storeTmp, Files.isDirectory(storeTmp));
        }

        Before before() {
            return new Before(counters.value(Counter.S3_ERRORS), counters.keyed(KeyedCounter.S3_ERRORS_BY_CODE)
                    .values().stream().mapToLong(Long::longValue).sum(), counters.value(Counter.CUOBJ_ERRORS));
        }

        void baseline() throws InterruptedException {
            baseThreads = threads.getThreadCount();
            baseFds = openFds();
            timing("baseline after the first round: threads " + baseThreads + ", fds " + baseFds);
        }

        void check(String what, Before b, String code, boolean cuObj) throws InterruptedException {
            await(what + ": the error answer counted once as " + code, AUDIT,
                    () -> counters.value(Counter.S3_ERRORS) == b.s3Errors() + 1);
            long byCode = counters.keyed(KeyedCounter.S3_ERRORS_BY_CODE).values().stream().mapToLong(Long::longValue)
                    .sum();
            assertEquals(what + ": one error by code " + counters.keyed(KeyedCounter.S3_ERRORS_BY_CODE), b.byCode() + 1,
                    byCode);
            assertTrue(what + ": by code " + counters.keyed(KeyedCounter.S3_ERRORS_BY_CODE),
                    counters.keyed(KeyedCounter.S3_ERRORS_BY_CODE).getOrDefault(code, 0L) > 0);
            if (cuObj) {
                await(what + ": a facade error", AUDIT, () -> counters.value(Counter.CUOBJ_ERRORS) > b.cuObjErrors());
            }
            CuObjServer facade = waitForService(CuObjServer.class, null);
            Transport tcp = waitForService(Transport.class, "(objrdma.transport.name=tcp)");
            await(what + ": server channels closed but the facade's kept agent connections", AUDIT,
                    () -> tcp.channels().size() == facade.agentConnectionCount());
            await(what + ": facade buffers deregistered", AUDIT, () -> facade.bufferCount() == 0);
            await(what + ": staging bytes lent 0", AUDIT, () -> pool().stats().bytesBorrowed() == 0);
            if (cuObj) {
                // one failed facade call per chunk in flight: a GET keeps both staging buffers' WRITEs in flight
                // (CuObjPipeline), so a kill fails one or two calls of the one request; every call has ended here
                long failedCalls = counters.value(Counter.CUOBJ_ERRORS) - b.cuObjErrors();
                assertTrue(what + ": one facade error per chunk in flight (1 or 2), not " + failedCalls,
                        failedCalls >= 1 && failedCalls <= 2);
            }
            try (Stream<Path> left = Files.list(storeTmp)) {
                assertEquals(what + ": partial writes left in the store", List.of(), left.toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (baseThreads >= 0) {
                await(what + ": threads back to " + baseThreads + " (+" + THREAD_SLACK + ")", AUDIT,
                        () -> threads.getThreadCount() <= baseThreads + THREAD_SLACK);
                await(what + ": fds back to " + baseFds + " (+" + FD_SLACK + ")", AUDIT,
                        () -> openFds() <= baseFds + FD_SLACK);
            }
        }

        private static int openFds() {
            try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
                return (int) s.count();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void timing(String line) {
        String file = System.getProperty(TIMINGS_PROPERTY);
        if (file == null || file.isEmpty()) {
            return;
        }
        try {
            Files.writeString(Path.of(file), java.time.Instant.now() + " RdmaRoutesIT " + line + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
    /**
     * The gateway shows the frozen child's transfer in flight: an RC session claimed by its READY (the data phase
     * runs), or for cuObject the request's staging buffers lent. The frozen client cannot let it finish.
     */
    private void awaitInFlight(String proto, Answer started, long lentBefore) throws InterruptedException {
        if (proto.equals("rc")) {
            String session = started.get("session");
            // claimed (TRANSFERRING), or already ended (killMid then checks it did not complete)
            try {
                await("READY claimed " + session, AUDIT, () -> !endsOf(session).isEmpty() || sessions().snapshot()
                        .stream().anyMatch(s -> s.sessionId().hex().equals(session) && s.state() != SessionState.PREPARED));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; sessions " + sessions().snapshot() + "; " + started.line(), e);
            }
        } else {
            await("the cuObject request borrowed its staging", AUDIT, () -> pool().stats().borrowed() > lentBefore);
        }
    }

    // ------------------------------------------------------------------ 4. the transport goes mid-transfer

    /**
     * Stops the TCP transport bundle while a 64 MiB cuObject GET runs and an RC PUT is mid-data-phase (each child
     * frozen mid-transfer): both fail with 502 once their child runs on, the RC session ends exactly once, staging
     * is back to zero, nothing is committed; with the bundle started again a new transfer on each protocol succeeds.
     * The RC GET variant is {@link #transportRemovedMidRcGet}.
     */
    @Test
    public void transportRemovedMidTransfer() throws Exception {
        RdmaChild auditor = child();
        ensureBucket(auditor);
        ok(auditor.call("httpput /bkt/tbig - " + BIG + " 60"));
        ok(auditor.call("httpput /bkt/tsmall - 4096 62"));
        RdmaChild cuGet = child();
        long lent = pool().stats().borrowed();
        cuGet.send("get cuobj /bkt/tbig - " + BIG + " --slow --warm=/bkt/tsmall");
        awaitInFlight("cuobj", cuGet.await("STARTED", Duration.ofSeconds(60)), lent);
        RdmaChild rcPut = child();
        rcPut.send("put rc /bkt/tput - " + BIG + " 61 --slow");
        Answer putStarted = rcPut.await("STARTED", Duration.ofSeconds(60));
        String putSession = putStarted.get("session");
        awaitInFlight("rc", putStarted, 0);

        Bundle tcp = Arrays.stream(bundleContext.getBundles())
                .filter(b -> "objrdma-transport-tcp".equals(b.getSymbolicName())).findFirst().orElseThrow();
        tcp.stop();
        try {
            cuGet.resume();
            Answer b = withThreadDump(() -> cuGet.await("OK|FAIL", AUDIT));
            assertEquals(b.line(), 502, b.status());
            Answer p = withThreadDump(() -> rcPut.await("OK|FAIL", AUDIT));
            assertEquals(p.line(), 502, p.status());
            assertNotEquals(TerminalReason.COMPLETED, withThreadDump(() -> awaitEnd(putSession)).reason());
            ThreadDump.await("staging lent 0 without the transport", AUDIT, () -> {
                StagingPool pool = bundleContext.getServiceReference(StagingPool.class) == null ? null : pool();
                return pool == null || pool.stats().borrowed() == 0;
            });
        } finally {
            tcp.start();
        }
        waitForService(Transport.class, "(objrdma.transport.name=tcp)");
        awaitGatewayServesRdma(auditor);
        assertEquals("nothing committed", 404, auditor.call("httpget /bkt/tput -").status());
        awaitQuiet();
        assertEachEndedOnce();
    }

    /** A wait of {@link #transportRemovedMidTransfer}; if it fails, the container's threads go into the failure. */
    private static <T> T withThreadDump(java.util.concurrent.Callable<T> wait) throws Exception {
        try {
            return wait.call();
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + ThreadDump.all(), e);
        }
    }

    /** {@link #transportRemovedMidTransfer} for an RC GET in its data phase (the client frozen after its READY). */
    @Test
    public void transportRemovedMidRcGet() throws Exception {
        RdmaChild auditor = child();
        ensureBucket(auditor);
        ok(auditor.call("httpput /bkt/tbig - " + BIG + " 60"));
        RdmaChild rcGet = child();
        rcGet.send("get rc /bkt/tbig - " + BIG + " --slow");
        Answer started = rcGet.await("STARTED", Duration.ofSeconds(60));
        awaitInFlight("rc", started, 0);
        Bundle tcp = Arrays.stream(bundleContext.getBundles())
                .filter(b -> "objrdma-transport-tcp".equals(b.getSymbolicName())).findFirst().orElseThrow();
        tcp.stop();
        try {
            rcGet.resume();
            Answer a = rcGet.await("OK|FAIL", AUDIT);
            assertEquals(a.line(), 502, a.status());
            assertNotEquals(TerminalReason.COMPLETED, awaitEnd(started.get("session")).reason());
        } finally {
            tcp.start();
        }
        awaitGatewayServesRdma(auditor);
        awaitQuiet();
        assertEachEndedOnce();
    }

    /** After the transport came back: the services rebind; a new transfer on each protocol succeeds. */
    private void awaitGatewayServesRdma(RdmaChild c) throws Exception {
        waitForService(SessionManager.class, null);
        waitForService(CuObjServer.class, null);
        String want = crc(BIG, 60);
        long deadline = System.nanoTime() + AUDIT.toNanos();
        Answer rc;
        Answer cu;
        do {
            rc = c.call("get rc /bkt/tbig - " + BIG);
            cu = c.call("get cuobj /bkt/tbig - " + BIG);
            if (rc.kind().equals("OK") && "200".equals(cu.get("x-amz-rdma-reply"))) {
                break;
            }
            Thread.sleep(200); // the optional references of the gateway rebind a moment after the services return
        } while (System.nanoTime() < deadline);
        assertEquals(rc.line(), want, ok(rc).get("crc"));
        assertEquals(cu.line(), want, ok(cu).get("crc"));
        assertEquals(cu.line(), "200", cu.get("x-amz-rdma-reply"));
    }
}
