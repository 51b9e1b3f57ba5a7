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
import java.util.Base64;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.servlet.Servlet;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.transport.Transport;
import org.objrdma.itests.rdma.RdmaChild;
import org.objrdma.itests.rdma.RdmaChild.Answer;
import org.objrdma.itests.rdma.RdmaClientMain;
import org.objrdma.itests.rdma.SoftVerbsObjects;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * hipObject's reference client against the distribution (issue 26 §2): a second JVM behaving as that client does
 * ({@code HipObjClient}: control POSTs signed with service {@code hipobj} and no {@code x-amz-content-sha256}, a
 * PREPARE token with rkey, address and length 0, the GET memory named in READY, cookie 0 too) on the software verbs
 * device's cross-process fabric, Karaf's session manager on {@code verbs:softrc0}, over real HTTP.
 *
 * <ul>
 * <li>GET (MR in READY), PUT, a ranged GET, UploadPart then CompleteMultipartUpload, 4 KiB to 64 MiB, byte-exact.</li>
 * <li>Every row of the status table (objrdma-s3 README, "hipobj-rc-v2 status codes") in both styles of
 *     {@code rdma.rc.status.style}: unknown session, another principal's READY and a cookie mismatch (session
 *     kept), READY memory outside what
 *     PREPARE declared (kept, nothing moved), transfer failure (session ended), limit, transfer timeout (nothing
 *     committed), and the single-round-trip token on a plain object request (501, the unsupported marker).</li>
 * <li>The client killed in the middle of a PUT: nothing committed, the session ended once.</li>
 * <li>After each test: no session, staging lent 0, every session ended once, Karaf's queue pairs and windows and
 *     the client's objects back to their baseline.</li>
 * </ul>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HipObjectClientIT extends VerbsItSupport {

    private static final String AK = "HIPOBJITACCESSKEY001";
    private static final String SECRET = "hipObjItSecret/0123456789abcdefghijklmno";
    private static final String OTHER_AK = "HIPOBJITOTHERKEY0002";
    private static final String OTHER_SECRET = "hipObjItOtherSecret/0123456789abcdefghij";
    private static final int USER_SESSIONS = 3;


    @Configuration
    public Option[] config() throws IOException {
        return verbsOptions(AK + ":" + SECRET + "," + OTHER_AK + ":" + OTHER_SECRET,
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", "127.0.0.0/8"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "prep.timeout.ms", "30000"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "exec.timeout.ms", "20000"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "max.user.sessions", String.valueOf(USER_SESSIONS)));
    }

    @Before
    public void awaitSessions() throws Exception {
        waitForService(SessionManager.class, null);
        listenForSessionEnds();
        awaitQuiet();
        takeBaseline();
    }

    @After
    public void restoreStatusStyle() throws Exception {
        killClients();
        setStyle("objrdma");
    }

    private RdmaChild child() throws Exception {
        RdmaChild c = keep(RdmaChild.start(httpPort(), AK, SECRET, new File("client-jvm-hipobj.log"), "768m",
                List.of("-D" + RdmaClientMain.VERBS_PROPERTY + "=" + softDevice())));
        ok(c.call("cred other " + OTHER_AK + " " + OTHER_SECRET));
        // a test before may have changed org.objrdma.s3: Pax Web registers the servlet again (Jetty 404s meanwhile)
        await("the bucket created", AUDIT, () -> {
            try {
                Answer a = c.call("httpput /hbkt - 0 0");
                return a.status() == 200 || "BucketAlreadyOwnedByYou".equals(a.get("code"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        return c;
    }


    /** {@code rdma.rc.status.style} of org.objrdma.s3, the other properties kept; waits until the gateway answers so. */
    private void setStyle(String style) throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        org.osgi.service.cm.Configuration c = ca.getConfiguration("org.objrdma.s3", "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        if (style.equals(props.get("rdma.rc.status.style")) || props.get("rdma.rc.status.style") == null
                && style.equals("objrdma")) {
            return;
        }
        props.put("rdma.rc.status.style", style);
        c.update(props);
    }

    // ------------------------------------------------------------------ transfers

    @Test
    public void theReferenceClientsTransfersAreServedByteExact() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        int[] sizes = {4096, MIB + 3, BIG};
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            long seed = 600 + i;
            String want = crc(RdmaClientMain.random(size, seed));
            ok(c.call("httpput /hbkt/o" + size + " - " + size + " " + seed));
            // GET: the token names no memory, READY does
            Answer get = ok(c.call("hip get /hbkt/o" + size + " - " + size + " 0"));
            assertEquals(get.line(), want, get.get("crc"));
            assertEquals(get.line(), "imm-cookie", get.get("arrival"));
            assertEquals(get.line(), String.valueOf(size), get.get("bytes"));
            // PUT: the WRITE_WITH_IMM of the cookie into the staging region PREPARE named
            Answer put = ok(c.call("hip put /hbkt/p" + size + " - " + size + " " + (seed + 10)));
            assertEquals(put.line(), "SUCCESS", put.get("write"));
            assertEquals(crc(RdmaClientMain.random(size, seed + 10)), ok(c.call("httpget /hbkt/p" + size + " -")).get("bodycrc"));
        }
        // cookie 0, both directions; a GET whose MR PREPARE also declared
        String small = crc(RdmaClientMain.random(4096, 600));
        assertEquals(small, ok(c.call("hip get /hbkt/o4096 - 4096 0 --cookie=0")).get("crc"));
        assertEquals(small, ok(c.call("hip get /hbkt/o4096 - 4096 0 --mr-in-prepare")).get("crc"));
        ok(c.call("hip put /hbkt/zero - 4096 620 --cookie=0"));
        assertEquals(crc(RdmaClientMain.random(4096, 620)), ok(c.call("httpget /hbkt/zero -")).get("bodycrc"));

        // a ranged GET: 2 MiB + 11 bytes from an odd offset of the 64 MiB object
        byte[] object = RdmaClientMain.random(BIG, 602);
        int from = 8 * MIB - 5;
        int len = 2 * MIB + 11;
        Answer ranged = ok(c.call("hip get /hbkt/o" + BIG + " - " + len + " 0 --offset=" + from));
        assertEquals(ranged.line(), crc(Arrays.copyOfRange(object, from, from + len)), ranged.get("crc"));

        // UploadPart (both parts) as the reference client, CompleteMultipartUpload over HTTP
        Answer created = ok(c.call("http POST /hbkt/mp uploads -"));
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(
                new String(Base64.getDecoder().decode(created.get("text")), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(created.line(), m.find());
        String upload = m.group(1);
        int p1 = 5 * MIB + 3;
        int p2 = 3 * MIB + 7;
        String e1 = ok(c.call("hip put /hbkt/mp partNumber=1&uploadId=" + upload + " " + p1 + " 631")).get("etag");
        String e2 = ok(c.call("hip put /hbkt/mp partNumber=2&uploadId=" + upload + " " + p2 + " 632")).get("etag");
        String xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"" + e1
                + "\"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>\"" + e2 + "\"</ETag></Part></CompleteMultipartUpload>";
        ok(c.call("http POST /hbkt/mp uploadId=" + upload + " "
                + Base64.getEncoder().encodeToString(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        byte[] whole = new byte[p1 + p2];
        System.arraycopy(RdmaClientMain.random(p1, 631), 0, whole, 0, p1);
        System.arraycopy(RdmaClientMain.random(p2, 632), 0, whole, p1, p2);
        assertEquals(crc(whole), ok(c.call("httpget /hbkt/mp -")).get("bodycrc"));
        auditWithSessions(c, before);
    }

    // ------------------------------------------------------------------ the status table

    /** One style's expected statuses: unknown session, cookie mismatch, limit, timeout, transfer failure. */
    private record Style(String name, int unknown, int cookie, int limit, int timeout, int wire) {
    }

    @Test
    public void everyStatusRowInBothStyles() throws Exception {
        RdmaChild c = child();
        Answer before = ok(c.call("verbsobjects"));
        ok(c.call("httpput /hbkt/s - 4096 700"));
        String want = crc(RdmaClientMain.random(4096, 700));
        String zeros = crc(new byte[4096]);
        for (Style s : new Style[] {new Style("objrdma", 404, 404, 429, 504, 502), new Style("hipobj", 409, 403, 503, 408, 500)}) {
            applyStyle(c, s.name(), s.unknown());
            // unknown session
            Answer unknown = c.call("hipunknown");
            assertEquals(unknown.line(), "NoSuchRdmaSession", unknown.get("code"));

            // cookie mismatch: refused, the session kept, the right cookie then served
            Answer cookie = ok(c.call("hip get /hbkt/s - 4096 0 --ready-cookie=99"));
            assertEquals(cookie.line(), s.cookie() + "/" + (s.cookie() == 403 ? "RdmaCookieMismatch" : "NoSuchRdmaSession"),
                    cookie.get("first"));
            assertEquals(cookie.line(), want, cookie.get("crc"));

            // another principal's READY: answered exactly as an unknown session, the session kept for its owner
            Answer foreign = ok(c.call("hip get /hbkt/s - 4096 0 --ready-as=other"));
            assertEquals(foreign.line(), s.unknown() + "/NoSuchRdmaSession", foreign.get("first"));
            assertEquals(foreign.line(), want, foreign.get("crc"));

            // READY memory outside what PREPARE declared: 400 in both, kept, nothing moved before the good READY
            Answer outside = ok(c.call("hip get /hbkt/s - 4096 0 --mr-in-prepare --ready-offset=4096"));
            assertEquals(outside.line(), "400/InvalidRdmaRequest", outside.get("first"));
            assertEquals(outside.line(), want, outside.get("crc"));

            // transfer failure (READY names a key the client's device refuses): the session ended, nothing moved
            Answer wire = c.call("hip get /hbkt/s - 4096 0 --ready-rkey=xor");
            assertEquals(wire.line(), s.wire() + "/RdmaTransferFailed", wire.get("first"));
            assertEquals(wire.line(), s.unknown(), wire.status()); // the good READY after it finds no session
            assertEquals(wire.line(), zeros, wire.get("crc"));
            assertTrue(awaitEnd(wire.get("session")).reason() != TerminalReason.COMPLETED);

            // the per-principal session limit
            List<String> held = new ArrayList<>();
            for (int i = 0; i < USER_SESSIONS; i++) {
                held.add(ok(c.call("hip get /hbkt/s - 4096 0 --no-ready")).get("session"));
            }
            Answer limit = c.call("hip get /hbkt/s - 4096 0 --no-ready");
            assertEquals(limit.line(), s.limit(), limit.status());
            assertEquals(limit.line(), "RdmaResourceLimit", limit.get("code"));
            for (String session : held) {
                assertEquals(204, c.call("hipcancel " + session).status());
                awaitEnd(session);
            }

            // transfer timeout: a PUT whose WRITE_WITH_IMM never comes; nothing committed
            Answer timeout = c.call("hip put /hbkt/timeout-" + s.name() + " - 4096 701 --stall");
            if (timeout.kind().equals("STARTED")) {
                timeout = c.await("OK|FAIL", AUDIT);
            }
            assertEquals(timeout.line(), s.timeout(), timeout.status());
            assertEquals(timeout.line(), "RdmaTransferTimeout", timeout.get("code"));
            assertEquals("nothing committed", 404, c.call("http HEAD /hbkt/timeout-" + s.name() + " - -").status());

            // hipObject's single-round-trip token on a plain GET / PUT: 501 with the unsupported marker, nothing
            // moved or stored (the same in both styles)
            Answer oneGet = c.call("hiponeshot get /hbkt/s 4096");
            assertEquals(oneGet.line(), 501, oneGet.status());
            assertEquals(oneGet.line(), "unsupported", oneGet.get("protocolStatus"));
            assertEquals(oneGet.line(), zeros, oneGet.get("crc"));
            Answer onePut = c.call("hiponeshot put /hbkt/oneshot 4096");
            assertEquals(onePut.line(), 501, onePut.status());
            assertEquals(onePut.line(), "unsupported", onePut.get("protocolStatus"));
            assertEquals(404, c.call("http HEAD /hbkt/oneshot - -").status());
        }
        applyStyle(c, "objrdma", 404);
        auditWithSessions(c, before);
    }

    /**
     * Sets the style and waits until the gateway answers an unknown session with {@code unknown} five times in a row:
     * a configuration change applies live, and Pax Web registers the servlet again right after (a moment of Jetty
     * 404s, objrdma-s3 README).
     */
    private void applyStyle(RdmaChild c, String style, int unknown) throws Exception {
        setStyle(style);
        int[] inARow = {0};
        await("the gateway answers in the " + style + " style", AUDIT, () -> {
            try {
                Answer a = c.call("hipunknown");
                inARow[0] = a.status() == unknown && "NoSuchRdmaSession".equals(a.get("code")) ? inARow[0] + 1 : 0;
                Thread.sleep(300);
                return inARow[0] >= 5;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    // ------------------------------------------------------------------ the client killed mid-transfer

    @Test
    public void theClientKilledMidPutLeavesNothingCommitted() throws Exception {
        RdmaChild c = child();
        c.send("hip put /hbkt/killed - " + BIG + " 800 --stall");
        Answer started = c.await("STARTED", AUDIT);
        String session = started.get("session");
        c.kill();
        TerminalEvent end = awaitEnd(session);
        assertTrue(end.toString(), end.reason() != TerminalReason.COMPLETED);
        RdmaChild other = child();
        assertEquals("nothing committed", 404, other.call("http HEAD /hbkt/killed - -").status());
        auditWithSessions(null, null);
    }
}
