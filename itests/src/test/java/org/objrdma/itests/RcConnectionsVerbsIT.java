package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import javax.servlet.Servlet;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.transport.Transport;
import org.objrdma.itests.rdma.RdmaChild;
import org.objrdma.itests.rdma.RdmaChild.Answer;
import org.objrdma.itests.rdma.RdmaClientMain;
import org.objrdma.itests.rdma.SoftVerbsObjects;
import org.objrdma.itests.rdma.VerbsBaseline;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * cuObject over RC connections (issue 26 §1, §3), as elbencho's client library speaks it, against the distribution on
 * the software verbs device ({@code softrc0}, its cross-process fabric): the client is a second JVM
 * ({@code RdmaClientMain} with {@code RcConnectionRows}, written from the protocol's facts) whose queue pairs live on a
 * verbs transport of its own; everything goes over real HTTP through Pax Web.
 *
 * <ul>
 * <li>Connect (unsigned, body-less), PUT, GET, ranged GET, UploadPart then Complete, 4 KiB to 64 MiB byte-exact,
 *     disconnect 204; every answer judged as objrdma's, a MinIO-style and a Cloudian-style client would: success.</li>
 * <li>Error rows: bad token, wrong transport, PSN 0 (400); the per-source and total bounds (503, freed by disconnect);
 *     a connection bound to its first principal refuses another (403, client memory untouched); an unknown, a
 *     disconnected, a reaped never-used and a reaped idle connection (400, the idle timeout lowered live);
 *     disconnect of an unknown one (204).</li>
 * <li>The client killed in the middle of a 64 MiB PUT and of a 64 MiB GET: nothing committed, the connection
 *     ended, the object read untouched; while the transfer runs, a second request on its connection is 409.</li>
 * <li>Declines (size below {@code rdma.min.bytes}) per client style, with {@code rdma.declined.put} 501 and 200: a
 *     declined GET brings the body, a declined PUT never stores anything and the styles that fall back store it
 *     over HTTP.</li>
 * <li>After each test: staging lent 0, Karaf's queue pairs and memory windows at their baseline, its
 *     registrations at most the baseline plus pooled staging, the client's objects at its baseline.</li>
 * </ul>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RcConnectionsVerbsIT extends VerbsItSupport {

    private static final String AK = "RCCONNITACCESSKEY001";
    private static final String SECRET = "rcConnItSecret/0123456789abcdefghijklmnop";
    private static final String OTHER_AK = "RCCONNITOTHERKEY0002";
    private static final String OTHER_SECRET = "rcConnItOtherSecret/0123456789abcdefghij";
    /** rdma.min.bytes: smaller transfers are declined. */
    private static final int MIN = 2048;

    @Configuration
    public Option[] config() throws IOException {
        return verbsOptions(AK + ":" + SECRET + "," + OTHER_AK + ":" + OTHER_SECRET,
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.min.bytes", String.valueOf(MIN)),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.rc.max.connections", "6"),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.rc.max.connections.per.source", "4"),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.rc.idle.timeout.ms", "60000"),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.rc.unbound.timeout.ms", "3000"),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "rdma.rc.transfer.timeout.ms", "5000"));
    }

    @Before
    public void takeBaselineWhenQuiet() throws Exception {
        awaitStagingIdle();
        takeBaseline();
    }

    private RdmaChild child() throws Exception {
        return keep(RdmaChild.startOnVerbs(httpPort(), AK, SECRET, OTHER_AK, OTHER_SECRET, softDevice(), "rcbkt",
                new File("client-jvm-rcconn.log")));
    }

    private static Answer status(Answer a, int status, String code) {
        assertEquals(a.line(), status, a.status());
        if (code != null) {
            assertEquals(a.line(), code, a.get("code"));
        }
        return a;
    }

    /** Staging lent 0, then the device and client objects against the baseline ({@link VerbsBaseline}). */
    private void audit(RdmaChild client, Answer clientBefore) throws InterruptedException {
        awaitStagingIdle();
        baseline.audit(client, clientBefore, AUDIT, ObjRdmaTestSupport::await, true);
    }

    private static final String ALL_SUCCESS = "objrdma:success,minio:success,cloudian:success";

    // ------------------------------------------------------------------ §1: the transfers

    @Test
    public void connectionMovesEverySizeRangeAndUploadPart() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        int qps = device.live(SoftVerbsObjects.QPS);
        Answer conn = ok(c.call("rcc connect A"));
        assertEquals(conn.line(), "1", conn.get("transport"));
        assertEquals("one queue pair per connection (" + device.describe() + ")", qps + 1,
                device.live(SoftVerbsObjects.QPS));
        int[] sizes = {4096, MIB + 3, BIG};
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            String want = crc(size, 400 + i);
            ok(c.call("httpput /rcbkt/o" + size + " - " + size + " " + (400 + i)));
            Answer get = ok(c.call("rcc get A /rcbkt/o" + size + " " + size));
            assertEquals(get.line(), 200, get.status());
            assertEquals(get.line(), "200", get.get("x-amz-rdma-reply"));
            assertEquals(get.line(), String.valueOf(size), get.get("x-amz-rdma-bytes-transferred"));
            assertEquals(get.line(), want, get.get("memcrc"));
            assertEquals(get.line(), "0", get.get("length"));
            assertEquals(get.line(), ALL_SUCCESS, get.get("verdicts"));
            Answer put = ok(c.call("put rcc:A /rcbkt/rc" + size + " - " + size + " " + (400 + i)));
            assertEquals(put.line(), "200", put.get("x-amz-rdma-reply"));
            assertTrue(put.line(), !put.get("etag").isEmpty());
            assertEquals(put.line(), ALL_SUCCESS, put.get("verdicts"));
            assertEquals("RC connection PUT stored byte-exact", want,
                    ok(c.call("httpget /rcbkt/rc" + size + " -")).get("bodycrc"));
        }
        // a ranged GET (MinIO-style clients always range): 2 MiB + 11 bytes from an odd offset, 206
        byte[] object = RdmaClientMain.random(BIG, 402);
        int from = 8 * MIB - 5;
        int len = 2 * MIB + 11;
        Answer ranged = c.call("rcc get A /rcbkt/o" + BIG + " " + len + " --range=" + from + "-" + (from + len - 1));
        assertEquals(ranged.line(), 206, ranged.status());
        assertEquals(ranged.line(), "206", ranged.get("x-amz-rdma-reply"));
        assertEquals(ranged.line(), "bytes_" + from + "-" + (from + len - 1) + "/" + BIG, ranged.get("content-range"));
        assertEquals(ranged.line(), crc(Arrays.copyOfRange(object, from, from + len)), ranged.get("memcrc"));
        assertEquals(ranged.line(), ALL_SUCCESS, ranged.get("verdicts"));

        // UploadPart over the connection for both parts, CompleteMultipartUpload over HTTP
        byte[] whole = c.uploadTwoPartsThenCompleteOverHttp("/rcbkt/mp", "rcc:A", 5 * MIB + 3, 411, "rcc:A", 3 * MIB + 7, 412);
        assertEquals(crc(whole), ok(c.call("httpget /rcbkt/mp -")).get("bodycrc"));

        String session = conn.get("session");
        status(ok(c.call("rcc disconnect A")), 204, null);
        // the connection is gone: its token is refused, nothing moved
        Answer stale = c.call("rcc get Z /rcbkt/o4096 4096 --session=" + session);
        status(stale, 400, "InvalidRDMAToken");
        assertEquals(stale.line(), crc(new byte[4096]), stale.get("memcrc"));
        audit(c, before);
    }

    // ------------------------------------------------------------------ §1: the error rows

    @Test
    public void connectionErrorRows() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        ok(c.call("httpput /rcbkt/e - 4096 500"));
        // bad token, a token of another transport, PSN 0, a PSN that is not 6 hex digits: 400, no queue pair kept
        status(c.call("rcc connect X --token=zz"), 400, "InvalidRdmaRequest");
        status(c.call("rcc connect X --transport=0"), 400, "InvalidRdmaRequest");
        status(c.call("rcc connect X --psn=000000"), 400, "InvalidRdmaRequest");
        status(c.call("rcc connect X --psn=12345"), 400, "InvalidRdmaRequest");
        int qps = device.live(SoftVerbsObjects.QPS);
        assertTrue(device.describe(), qps <= baseline.qps());

        // bounds: 4 per source, 6 in total; a disconnect frees a place
        for (int i = 1; i <= 4; i++) {
            ok(c.call("rcc connect B" + i));
        }
        status(c.call("rcc connect B5"), 503, "RdmaResourceLimit");
        ok(c.call("rcc connect C1 --from=127.0.0.2"));
        ok(c.call("rcc connect C2 --from=127.0.0.2"));
        status(c.call("rcc connect D1 --from=127.0.0.3"), 503, "RdmaResourceLimit");
        assertEquals(device.describe(), qps + 6, device.live(SoftVerbsObjects.QPS));
        ok(c.call("rcc disconnect C2 --from=127.0.0.2"));
        ok(c.call("rcc connect D1 --from=127.0.0.3"));
        for (String n : new String[] {"B1", "B2", "B3", "B4", "C1", "D1"}) {
            ok(c.call("rcc disconnect " + n));
        }

        // bound to the principal of its first signed request: another principal gets 403 and nothing moves
        ok(c.call("rcc connect F"));
        ok(c.call("put rcc:F /rcbkt/f - 4096 501"));
        Answer foreign = c.call("rcc get F /rcbkt/e 4096 --as=other");
        status(foreign, 403, "AccessDenied");
        assertEquals(foreign.line(), crc(new byte[4096]), foreign.get("memcrc"));
        status(c.call("put rcc:F /rcbkt/foreign - 4096 502 --as=other"), 403, "AccessDenied");
        assertEquals("nothing stored", "404:NoSuchKey", missing(c, "/rcbkt/foreign"));
        assertEquals(crc(4096, 500), ok(c.call("rcc get F /rcbkt/e 4096")).get("memcrc"));
        ok(c.call("rcc disconnect F"));

        // unknown connection; a malformed rc token; disconnect of an unknown one answers 204
        Answer unknown = c.call("rcc get Z /rcbkt/e 4096 --session=0123456789abcdef0123456789abcdef");
        status(unknown, 400, "InvalidRDMAToken");
        status(c.call("rcc get Z /rcbkt/e 4096 --session=nothex"), 400, "InvalidRDMAToken");
        status(ok(c.call("rcc disconnect Z --session=0123456789abcdef0123456789abcdef")), 204, null);

        // never used: reaped after rdma.rc.unbound.timeout.ms (3 s); its token then names nothing
        Answer reaped = ok(c.call("rcc connect R"));
        await("the unused connection reaped (" + device.describe() + ")", Duration.ofSeconds(30),
                () -> device.live(SoftVerbsObjects.QPS) == qps);
        status(c.call("rcc get Z /rcbkt/e 4096 --session=" + reaped.get("session")), 400, "InvalidRDMAToken");
        ok(c.call("rcc forget R"));

        // used, then idle: reaped after rdma.rc.idle.timeout.ms, here lowered live to 4 s (the reaper reads the
        // settings on each pass)
        setS3(c, "rdma.rc.idle.timeout.ms", "4000", "rdma.rc.unbound.timeout.ms", "4000");
        try {
            Answer idle = ok(settled(c, "rcc connect I"));
            ok(settled(c, "put rcc:I /rcbkt/idle - 4096 503"));
            await("the idle connection reaped (" + device.describe() + ")", Duration.ofSeconds(30),
                    () -> device.live(SoftVerbsObjects.QPS) == qps);
            status(settled(c, "rcc get Z /rcbkt/e 4096 --session=" + idle.get("session")), 400, "InvalidRDMAToken");
            ok(c.call("rcc forget I"));
        } finally {
            setS3(c, "rdma.rc.idle.timeout.ms", "60000", "rdma.rc.unbound.timeout.ms", "3000");
        }
        audit(c, before);
    }

    // ------------------------------------------------------------------ §1: the client killed mid-transfer

    @Test
    public void clientKilledInTheMiddleOfAPutOrAGetCommitsNothing() throws Exception {
        RdmaChild watcher = child();
        Answer before = ok(watcher.call("verbsobjects"));
        ok(watcher.call("httpput /rcbkt/kget - " + BIG + " 601"));
        String[] requests = {"rcc put K /rcbkt/killed - " + BIG + " 600 --slow", "rcc get K /rcbkt/kget " + BIG + " --slow"};
        for (String request : requests) {
            RdmaChild victim = child();
            String session = ok(victim.call("rcc connect K")).get("session");
            victim.send(request);
            victim.await("STARTED", Duration.ofSeconds(60));
            await("the transfer's staging lent", Duration.ofSeconds(60), () -> pool().stats().borrowed() > 0);
            // one request at a time per connection: the same principal's second request on it is refused, no byte moved
            Answer busy = watcher.call("rcc get Z /rcbkt/kget 4096 --session=" + session);
            status(busy, 409, "RdmaConnectionBusy");
            assertEquals(busy.line(), crc(new byte[4096]), busy.get("memcrc"));
            killNow(victim);
            // the transfer fails (the client's queue pair is gone, or rdma.rc.transfer.timeout.ms passes), the
            // connection ends with it: its queue pair closes and the staging goes back
            await("staging lent 0", AUDIT, () -> pool().stats().borrowed() == 0);
            await("the connection ended", AUDIT, () -> {
                try {
                    return watcher.call("rcc get Z /rcbkt/kget 4096 --session=" + session).status() == 400;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
        }
        assertEquals("nothing committed", "404:NoSuchKey", missing(watcher, "/rcbkt/killed"));
        assertEquals(crc(BIG, 601), ok(watcher.call("httpget /rcbkt/kget -")).get("bodycrc"));
        audit(watcher, before);
    }

    // ------------------------------------------------------------------ §3: declines per client style

    @Test
    public void declinesForEveryClientStyle() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        int small = 1024; // below rdma.min.bytes
        ok(c.call("httpput /rcbkt/small - " + small + " 700"));
        ok(c.call("rcc connect D"));
        // GET declined: HTTP 200 with the body, reply 501, the client memory untouched
        Answer get = ok(c.call("rcc get D /rcbkt/small " + small));
        assertEquals(get.line(), "501", get.get("x-amz-rdma-reply"));
        assertEquals(get.line(), crc(small, 700), get.get("bodycrc"));
        assertEquals(get.line(), crc(new byte[small]), get.get("memcrc"));
        assertEquals(get.line(), "objrdma:fallback,minio:error,cloudian:fallback", get.get("verdicts"));

        // PUT declined with rdma.declined.put=501: objrdma falls back (nothing was stored), MinIO and Cloudian fail
        Answer put = c.call("put rcc:D /rcbkt/d501 - " + small + " 701");
        status(put, 501, "NotImplemented");
        assertEquals(put.line(), "501", put.get("x-amz-rdma-reply"));
        assertEquals(put.line(), "objrdma:fallback,minio:error,cloudian:error", put.get("verdicts"));
        assertEquals(put.line(), "404:NoSuchKey", put.get("declinedGet"));
        assertEquals(put.line(), "200", put.get("fallback"));
        assertEquals(crc(small, 701), ok(c.call("httpget /rcbkt/d501 -")).get("bodycrc"));
        status(c.call("put rcc:D /rcbkt/d501c - " + small + " 702 --style=cloudian"), 501, "NotImplemented");
        assertEquals("nothing stored", "404:NoSuchKey", missing(c, "/rcbkt/d501c"));

        // rdma.declined.put=200 (live): Cloudian falls back, objrdma too, MinIO still fails (no ETag); nothing stored
        setDeclinedPut("200", c, small);
        try {
            assertEquals("a declined PUT stores nothing", "404:NoSuchKey", missing(c, "/rcbkt/probe"));
            Answer cloudian = settled(c, "put rcc:D /rcbkt/d200 - " + small + " 703 --style=cloudian");
            assertEquals(cloudian.line(), 200, cloudian.status());
            assertEquals(cloudian.line(), "501", cloudian.get("x-amz-rdma-reply"));
            assertEquals(cloudian.line(), null, cloudian.get("etag"));
            assertEquals(cloudian.line(), "objrdma:fallback,minio:error,cloudian:fallback", cloudian.get("verdicts"));
            assertEquals(cloudian.line(), "404:NoSuchKey", cloudian.get("declinedGet"));
            assertEquals(cloudian.line(), "200", cloudian.get("fallback"));
            assertEquals(crc(small, 703), ok(settled(c, "httpget /rcbkt/d200 -")).get("bodycrc"));
            // successes keep their answers in this mode
            Answer big = ok(settled(c, "put rcc:D /rcbkt/ok200 - 4096 704 --style=cloudian"));
            assertEquals(big.line(), ALL_SUCCESS, big.get("verdicts"));
        } finally {
            setDeclinedPut("501", c, small);
        }
        ok(settled(c, "rcc disconnect D"));
        audit(c, before);
    }

    /**
     * Sets {@code rdma.declined.put} through Config Admin and waits until a declined PUT answers with it. The gateway
     * applies it live, but Pax Web registers the servlet again after each update (its service properties change):
     * meanwhile a request may get Jetty's own 404, which {@link #settled} retries.
     */
    private void setDeclinedPut(String value, RdmaChild c, int small) throws Exception {
        setS3(c, "rdma.declined.put", value);
        await("rdma.declined.put=" + value + " applied", Duration.ofSeconds(60), () -> {
            try {
                return settled(c, "put rcc:D /rcbkt/probe - " + small + " 1 --style=minio").status()
                        == Integer.parseInt(value);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /**
     * Sets properties ({@code name, value, ...}) of {@code org.objrdma.s3} through Config Admin, the others kept, and
     * waits until the servlet answers steadily again: the gateway applies the values live, but Pax Web registers the
     * servlet again after each update (its service properties change), once or twice, and meanwhile Jetty answers
     * 404 itself. Steady: 3 s without such a 404.
     */
    private void setS3(RdmaChild c, String... nameValue) throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        org.osgi.service.cm.Configuration cfg = ca.getConfiguration("org.objrdma.s3", "?");
        Dictionary<String, Object> props = cfg.getProperties() == null ? new Hashtable<>() : cfg.getProperties();
        for (int i = 0; i < nameValue.length; i += 2) {
            props.put(nameValue[i], nameValue[i + 1]);
        }
        cfg.update(props);
        long[] lastJetty = {System.nanoTime()};
        await("the servlet steady after the update", Duration.ofSeconds(90), () -> {
            try {
                Answer a = c.call("httpget /rcbkt -");
                if (a.status() == 404 && a.get("code") == null) {
                    lastJetty[0] = System.nanoTime();
                }
                return System.nanoTime() - lastJetty[0] > Duration.ofSeconds(3).toNanos();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    /**
     * {@code command}'s answer once every request it made was the gateway's: a 404 without an S3 error code is
     * Jetty's while Pax Web registers the servlet again after a configuration update (nothing was served), so the
     * command is sent again (the commands used this way are idempotent: a declined PUT stores nothing, the fallback
     * PUT stores the same bytes).
     */
    private static Answer settled(RdmaChild c, String command) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            Answer a = c.call(command);
            boolean jetty = a.status() == 404 && a.get("code") == null || "404".equals(a.get("fallback"))
                    || "404:null".equals(a.get("declinedGet"));
            if (!jetty || System.nanoTime() > deadline) {
                return a;
            }
            Thread.sleep(200);
        }
    }

    /** {@code status:code} of a GET of {@code path} (a HEAD's 404 could not be told from Jetty's). */
    private static String missing(RdmaChild c, String path) throws InterruptedException {
        Answer a = settled(c, "httpget " + path + " -");
        return a.status() + ":" + a.get("code");
    }
}
