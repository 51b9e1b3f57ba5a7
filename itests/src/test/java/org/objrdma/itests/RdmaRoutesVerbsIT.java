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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.objrdma.api.transport.Transport;
import org.objrdma.cuobj.CuObjServer;
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
import org.osgi.framework.ServiceRegistration;

/**
 * The gateway's RDMA routes over the <b>verbs transport</b> on the software verbs device: Karaf runs the verbs
 * component with {@code library.path} set to the device ({@code softrc0}, its cross-process fabric), the session
 * manager pinned to {@code verbs:softrc0}; the client is a second JVM ({@link RdmaClientMain} with
 * {@code -Dobjrdma.it.client.verbs}) whose hipobj-rc-v2 transfers run on a verbs transport of its own on the same
 * fabric. Everything goes through Pax Web over real HTTP.
 *
 * <ul>
 * <li>hipobj-rc-v2 GET and PUT of 1 B, 4 KiB and 64 MiB, a ranged GET, UploadPart over RC then
 *     CompleteMultipartUpload over HTTP, byte-exact by CRC32C against plain HTTP; size 0 refused (400).</li>
 * <li>cuObject cannot run over verbs here: the facade binds only a transport serving {@code agent-one-sided} (the
 *     TCP transport; verbs would need DC targets). The request a verbs-only client makes (a descriptor naming LID
 *     and a QP number, no GID) is declined as documented: GET answers the body with {@code x-amz-rdma-reply: 501}
 *     and leaves the client memory untouched, PUT answers 501 and stores nothing, and the client's HTTP retry
 *     stores the bytes.</li>
 * <li>Security over verbs: a foreign principal's READY is 404 with the session untouched (a GET and a PUT session;
 *     the PUT's staging grant is a memory window bound to the session's queue pair); a GET token naming a
 *     forged rkey and a PUT writing past the staging grant are refused by the device (remote access error): 502,
 *     nothing committed.</li>
 * <li>After each test: staging lent 0, no session, and the device's queue pairs, memory windows and
 *     registrations in Karaf and in the client back to their baseline.</li>
 * </ul>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaRoutesVerbsIT extends VerbsItSupport {

    private static final String AK = "VERBSITACCESSKEY0001";
    private static final String SECRET = "verbsItSecret/0123456789abcdefghijklmnop";
    private static final String OTHER_AK = "VERBSITOTHERKEY00002";
    private static final String OTHER_SECRET = "verbsItOtherSecret/0123456789abcdefghijk";


    @Configuration
    public Option[] config() throws IOException {
        String loopback = "127.0.0.0/8";
        return verbsOptions(AK + ":" + SECRET + "," + OTHER_AK + ":" + OTHER_SECRET,
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "prep.timeout.ms", "10000"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "exec.timeout.ms", "20000"),
                editConfigurationFilePut("etc/org.objrdma.cuobj.cfg", "allow.addresses", loopback));
    }

    @Before
    public void awaitFacadeAndSessions() throws Exception {
        waitForService(CuObjServer.class, null);
        waitForService(SessionManager.class, null);
        listenForSessionEnds();
        awaitQuiet();
        takeBaseline();
    }

    private RdmaChild child() throws Exception {
        return keep(RdmaChild.startOnVerbs(httpPort(), AK, SECRET, OTHER_AK, OTHER_SECRET, softDevice(), "vbkt",
                new File("client-jvm-verbs.log")));
    }

    // ------------------------------------------------------------------ hipobj-rc-v2 over verbs

    @Test
    public void rcOverVerbsMovesEverySizeRangeAndUploadPart() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        int[] sizes = {1, 4096, BIG};
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            String want = crc(size, 100 + i);
            ok(c.call("httpput /vbkt/o" + size + " - " + size + " " + (100 + i)));
            Answer get = ok(c.call("get rc /vbkt/o" + size + " - " + size));
            assertEquals(get.line(), "true:SUCCESS", get.get("outcome"));
            assertEquals(get.line(), want, get.get("crc"));
            Answer put = ok(c.call("put rc /vbkt/rc" + size + " - " + size + " " + (100 + i)));
            assertEquals(put.line(), "true:SUCCESS", put.get("outcome"));
            assertEquals("RC PUT over verbs stored byte-exact", want, ok(c.call("httpget /vbkt/rc" + size + " -")).get("bodycrc"));
        }
        // 0 B: hipobj-rc-v2 refuses size 0 at PREPARE (400), as over TCP
        ok(c.call("httpput /vbkt/empty - 0 0"));
        Answer empty = c.call("rcsize /vbkt/empty 0");
        assertEquals(empty.line(), 400, empty.status());
        assertEquals(empty.line(), "InvalidRdmaRequest", empty.get("code"));

        // a ranged GET: 2 MiB + 11 bytes from an odd offset of the 64 MiB object
        byte[] object = RdmaClientMain.random(BIG, 102);
        int from = 8 * MIB - 5;
        int len = 2 * MIB + 11;
        Answer ranged = ok(c.call("get rc /vbkt/o" + BIG + " - " + len + " --offset=" + from));
        assertEquals(ranged.line(), crc(Arrays.copyOfRange(object, from, from + len)), ranged.get("crc"));

        // UploadPart over RC (verbs) for both parts, CompleteMultipartUpload over HTTP
        int p1 = 5 * MIB + 3;
        int p2 = 3 * MIB + 7;
        byte[] whole = c.uploadTwoPartsThenCompleteOverHttp("/vbkt/mp", "rc", p1, 111, "rc", p2, 112);
        assertEquals(crc(whole), ok(c.call("httpget /vbkt/mp -")).get("bodycrc"));
        auditWithSessions(c, before);
    }

    // ------------------------------------------------------------------ cuObject: declined over verbs

    @Test
    public void cuObjectOverVerbsIsDeclinedAndTheClientFallsBackToHttp() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        int[] sizes = {1, 4096, BIG};
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            String want = crc(size, 200 + i);
            String zeros = crc(new byte[size]);
            ok(c.call("httpput /vbkt/cu" + size + " - " + size + " " + (200 + i)));
            // GET: the body over HTTP, reply 501, the client memory never written
            Answer get = ok(c.call("cuverbs get /vbkt/cu" + size + " " + size + " 0"));
            assertEquals(get.line(), 200, get.status());
            assertEquals(get.line(), "501", get.get("x-amz-rdma-reply"));
            assertEquals(get.line(), want, get.get("bodycrc"));
            assertEquals(get.line(), zeros, get.get("memcrc"));
            // PUT: 501 with reply 501, nothing stored (HEAD 404 in between), the client's HTTP retry stores the bytes
            Answer put = c.call("cuverbs put /vbkt/cuput" + size + " " + size + " " + (210 + i));
            assertEquals(put.line(), 501, put.status());
            assertEquals(put.line(), "501", put.get("x-amz-rdma-reply"));
            assertEquals(put.line(), "404", put.get("declinedHead"));
            assertEquals(put.line(), "200", put.get("fallback"));
            assertEquals(crc(size, 210 + i), ok(c.call("httpget /vbkt/cuput" + size + " -")).get("bodycrc"));
        }
        auditWithSessions(c, before);
    }

    // ------------------------------------------------------------------ security over verbs

    @Test
    public void foreignReadyAndForgedMemoryOverVerbs() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        ok(c.call("httpput /vbkt/s - 4096 300"));

        // READY (and CANCEL) from another principal: 404 / 204, the session untouched; the owner's READY works
        c.send("rcforeign /vbkt/s 4096 --other=other");
        Answer mid = c.await("MID", Duration.ofSeconds(60));
        assertTrue(mid.line(), mid.get("foreign").contains("status=404") && mid.get("foreign").contains("NoSuchRdmaSession"));
        assertEquals(mid.line(), "204", mid.get("foreignCancel"));
        String session = mid.get("session");
        SessionSnapshot snap = waitForService(SessionManager.class, null).snapshot().stream()
                .filter(s -> s.sessionId().hex().equals(session)).findFirst()
                .orElseThrow(() -> new AssertionError("the foreign READY/CANCEL ended " + session));
        assertEquals(SessionState.PREPARED, snap.state());
        // the session's queue pair is the verbs transport's, on the device (not a TCP channel)
        assertEquals(1, waitForService(Transport.class, "(objrdma.transport.name=verbs:softrc0)").channels().size());
        assertEquals(device.describe(), baseline.qps() + 1, device.live(SoftVerbsObjects.QPS));
        c.send("go");
        Answer owner = ok(c.await("OK|FAIL", Duration.ofSeconds(60)));
        assertEquals(crc(4096, 300), owner.get("crc"));
        assertEquals(TerminalReason.COMPLETED, awaitEnd(session).reason());

        // the same for a PUT; its staging grant is a memory window bound to the session's queue pair (PREPARE named
        // the client's QPN, so the session connected at PREPARE): one more bound window in Karaf while it waits
        int boundBefore = device.live(SoftVerbsObjects.BOUND_MWS);
        c.send("rcforeign /vbkt/sput 4096 --other=other --put=302");
        Answer putMid = c.await("MID", Duration.ofSeconds(60));
        assertTrue(putMid.line(), putMid.get("foreign").contains("status=404"));
        String putSession = putMid.get("session");
        assertEquals(SessionState.PREPARED, waitForService(SessionManager.class, null).snapshot().stream()
                .filter(s -> s.sessionId().hex().equals(putSession)).findFirst().orElseThrow().state());
        assertEquals(device.describe(), boundBefore + 1, device.live(SoftVerbsObjects.BOUND_MWS));
        c.send("go");
        Answer putOwner = ok(c.await("OK|FAIL", Duration.ofSeconds(60)));
        assertEquals(putOwner.line(), "true:SUCCESS", putOwner.get("outcome"));
        assertEquals(crc(4096, 302), ok(c.call("httpget /vbkt/sput -")).get("bodycrc"));
        assertEquals(TerminalReason.COMPLETED, awaitEnd(putSession).reason());

        // a GET token naming a forged rkey: the server's WRITE_WITH_IMM is refused by the client's device
        for (String forge : new String[] {"rkey", "addr"}) {
            Answer get = c.call("get rc /vbkt/s - 4096 --forge=" + forge);
            assertEquals(get.line(), 502, get.status());
            assertEquals(get.line(), crc(new byte[4096]), get.get("crc"));
            assertTrue(get.line(), get.get("outcome").startsWith("false:"));
            assertTrue(awaitEnd(get.get("session")).reason() != TerminalReason.COMPLETED);
        }
        // a PUT that writes with a forged rkey / past the staging grant: refused by Karaf's device, nothing committed
        for (String forge : new String[] {"rkey", "addr"}) {
            Answer put = c.call("put rc /vbkt/forged-" + forge + " - 4096 301 --forge=" + forge);
            assertEquals(put.line(), 502, put.status());
            assertEquals(put.line(), "false:REM_ACCESS_ERR", put.get("outcome"));
            assertTrue(awaitEnd(put.get("session")).reason() != TerminalReason.COMPLETED);
            assertEquals("nothing committed", 404, c.call("http HEAD /vbkt/forged-" + forge + " - -").status());
        }
        auditWithSessions(c, before);
    }
}
