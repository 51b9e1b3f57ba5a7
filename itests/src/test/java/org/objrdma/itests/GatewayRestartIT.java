package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
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
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceRegistration;

/**
 * Issue 17, the gateway restarted with multipart uploads in progress, in Karaf (the module test is objrdma-s3's
 * {@code GatewayRestartTest}): two uploads take parts over HTTP and over hipobj-rc-v2 from a client JVM, an RC part
 * session is PREPARED, then
 * <ol>
 * <li>the gateway and store bundles ({@code objrdma-s3}, {@code objrdma-store-fs}) are stopped and started: the
 *     session manager kept the PREPARED session, its READY then delivers the part into the reopened store;
 * <li>with another part session PREPARED, every objrdma bundle is stopped (reverse install order) and started
 *     (install order): that session ends exactly once, not as completed, and its part never appears.
 * </ol>
 * After each: both uploads are listed with exactly the parts that arrived, nothing is visible under their keys; then
 * one upload takes one more part over RC and completes to the exact bytes sent, the other aborts and is gone; staging
 * lent 0, no session, each session ended once.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class GatewayRestartIT extends ObjRdmaTestSupport {

    private static final String AK = "RESTARTITACCESSKEY01";
    private static final String SECRET = "restartItSecret/0123456789abcdefghijklmn";
    private static final String PORT_PROPERTY = "objrdma.it.http.port";
    private static final int MIB = 1 << 20;
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Pattern PART = Pattern.compile("<PartNumber>(\\d+)</PartNumber>");

    private final List<TerminalEvent> ended = new CopyOnWriteArrayList<>();
    private final List<RdmaChild> children = new ArrayList<>();
    private ServiceRegistration<SessionTerminalListener> listener;

    @Configuration
    public Option[] config() {
        int port = freePort();
        String loopback = "127.0.0.0/8";
        return options(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "credentials", AK + ":" + SECRET),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "fsync", "false"),
                editConfigurationFilePut("etc/org.objrdma.cuobj.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", loopback),
                // the PREPARED sessions must outlive the restarts, not expire under them
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "prep.timeout.ms", "300000"),
                systemProperty(PORT_PROPERTY).value(String.valueOf(port)),
                systemProperty(RdmaChild.CLASSPATH_PROPERTY).value(System.getProperty("java.class.path")));
    }

    @Before
    public void awaitGateway() {
        awaitServices();
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

    private void awaitServices() {
        waitForService(ObjectStore.class, "(objrdma.store=fs)");
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        waitForService(SessionManager.class, null);
        waitForService(StagingPool.class, null);
        waitForService(CuObjServer.class, null);
        waitForService(Transport.class, "(objrdma.transport.name=tcp)");
    }

    private static Answer ok(Answer a) {
        assertEquals(a.line(), "OK", a.kind());
        return a;
    }

    private static String text(Answer a) {
        return new String(Base64.getDecoder().decode(a.get("text")), StandardCharsets.UTF_8);
    }

    private static byte[] concat(int[] sizes, long[] seeds) {
        int total = 0;
        for (int s : sizes) {
            total += s;
        }
        byte[] all = new byte[total];
        int at = 0;
        for (int i = 0; i < sizes.length; i++) {
            System.arraycopy(RdmaClientMain.random(sizes[i], seeds[i]), 0, all, at, sizes[i]);
            at += sizes[i];
        }
        return all;
    }

    private String createUpload(RdmaChild c, String key) throws Exception {
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(text(ok(c.call("http POST /bkt/" + key
                + " uploads -"))));
        assertTrue(key, m.find());
        return m.group(1);
    }

    private List<Integer> parts(RdmaChild c, String key, String upload) throws Exception {
        Matcher m = PART.matcher(text(ok(c.call("http GET /bkt/" + key + " uploadId=" + upload + " -"))));
        List<Integer> found = new ArrayList<>();
        while (m.find()) {
            found.add(Integer.parseInt(m.group(1)));
        }
        return found;
    }

    private List<TerminalEvent> endsOf(String session) {
        return ended.stream().filter(e -> e.sessionId().hex().equals(session)).toList();
    }

    private void awaitQuietAndEachEndedOnce() throws InterruptedException {
        StagingPool pool = waitForService(StagingPool.class, null);
        SessionManager sessions = waitForService(SessionManager.class, null);
        await("staging lent 0", WAIT, () -> pool.stats().borrowed() == 0 && pool.stats().bytesBorrowed() == 0);
        await("no live session", WAIT, () -> sessions.snapshot().isEmpty());
        Map<String, Integer> count = new ConcurrentHashMap<>();
        ended.forEach(e -> count.merge(e.sessionId().hex(), 1, Integer::sum));
        count.forEach((s, n) -> assertEquals("terminal events of session " + s, 1, (int) n));
    }

    /** Stops {@code bundles} in the reverse of the given order, starts them in it, waits for the gateway. */
    private void restart(List<Bundle> bundles) throws Exception {
        for (int i = bundles.size() - 1; i >= 0; i--) {
            bundles.get(i).stop();
        }
        for (Bundle b : bundles) {
            b.start();
        }
        awaitServices();
    }

    private Bundle bundle(String symbolicName) {
        return objrdmaBundles().stream().filter(b -> b.getSymbolicName().equals(symbolicName)).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + symbolicName));
    }

    /** The listing and parts after a restart, nothing visible under the upload keys. */
    private void assertUploads(RdmaChild c, String kept, String dropped, List<Integer> keptParts) throws Exception {
        String uploads = text(ok(c.call("http GET /bkt uploads -")));
        assertTrue(uploads, uploads.contains(kept) && uploads.contains(dropped));
        assertEquals(keptParts, parts(c, "kept", kept));
        assertEquals(List.of(1), parts(c, "dropped", dropped));
        assertEquals("nothing visible before completion", 404, c.call("http HEAD /bkt/kept - -").status());
        assertEquals("nothing visible before completion", 404, c.call("http HEAD /bkt/dropped - -").status());
    }

    @Test
    public void uploadsInProgressSurviveGatewayAndStackRestarts() throws Exception {
        RdmaChild c = RdmaChild.start(Integer.getInteger(PORT_PROPERTY), AK, SECRET, new File("client-jvm.log"), "512m");
        children.add(c);
        ok(c.call("httpput /bkt - 0 0"));
        int[] sizes = {5 * MIB + 3, 5 * MIB + 7, 5 * MIB, MIB + 1}; // all but the last part >= 5 MiB
        long[] seeds = {41, 42, 43, 44};
        String kept = createUpload(c, "kept");
        String dropped = createUpload(c, "dropped");
        List<String> etags = new ArrayList<>();
        etags.add(ok(c.call("httpput /bkt/kept partNumber=1&uploadId=" + kept + " " + sizes[0] + " " + seeds[0]))
                .get("etag"));
        etags.add(ok(c.call("put rc /bkt/kept partNumber=2&uploadId=" + kept + " " + sizes[1] + " " + seeds[1]))
                .get("etag"));
        ok(c.call("httpput /bkt/dropped partNumber=1&uploadId=" + dropped + " " + sizes[0] + " 45"));
        String first = ok(c.call("rcprepare /bkt/kept?uploadId=" + kept + "&partNumber=3 " + sizes[2] + " " + seeds[2]))
                .get("session");

        // 1. the gateway and the store: the session manager keeps the PREPARED session
        restart(List.of(bundle("objrdma-store-fs"), bundle("objrdma-s3")));
        awaitGatewayServes(c);
        assertUploads(c, kept, dropped, List.of(1, 2));
        assertTrue("the PREPARED session outlived a gateway restart", endsOf(first).isEmpty());
        assertEquals(SessionState.PREPARED, waitForService(SessionManager.class, null).snapshot().stream()
                .filter(s -> s.sessionId().hex().equals(first)).findFirst().orElseThrow().state());
        Answer third = ok(c.call("rcready " + first));
        assertEquals(third.line(), "true:SUCCESS", third.get("outcome"));
        etags.add(third.get("etag"));
        await("session " + first + " ended", WAIT, () -> !endsOf(first).isEmpty());
        assertEquals(TerminalReason.COMPLETED, endsOf(first).get(0).reason());
        awaitQuietAndEachEndedOnce();

        // 2. the whole objrdma stack, in install order, with another part PREPARED
        String second = ok(c.call("rcprepare /bkt/kept?uploadId=" + kept + "&partNumber=4 " + sizes[3] + " 99"))
                .get("session");
        List<Bundle> stack = new ArrayList<>(objrdmaBundles().stream()
                .filter(b -> b.getHeaders().get("Fragment-Host") == null && b.getState() == Bundle.ACTIVE).toList());
        stack.sort(Comparator.comparingLong(Bundle::getBundleId));
        assertFalse(stack.isEmpty());
        restart(stack);
        await("the PREPARED session ended with its session manager", WAIT, () -> !endsOf(second).isEmpty());
        assertNotEquals(TerminalReason.COMPLETED, endsOf(second).get(0).reason());
        awaitGatewayServes(c);
        assertUploads(c, kept, dropped, List.of(1, 2, 3));

        // what is left: one more part over RC, complete to the exact bytes; abort the other
        etags.add(ok(c.call("put rc /bkt/kept partNumber=4&uploadId=" + kept + " " + sizes[3] + " " + seeds[3]))
                .get("etag"));
        StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
        for (int i = 0; i < etags.size(); i++) {
            xml.append("<Part><PartNumber>").append(i + 1).append("</PartNumber><ETag>\"").append(etags.get(i))
                    .append("\"</ETag></Part>");
        }
        xml.append("</CompleteMultipartUpload>");
        ok(c.call("http POST /bkt/kept uploadId=" + kept + " "
                + Base64.getEncoder().encodeToString(xml.toString().getBytes(StandardCharsets.UTF_8))));
        byte[] whole = concat(sizes, seeds);
        assertEquals("completed to the exact bytes", RdmaClientMain.crc(MemorySegment.ofArray(whole), whole.length),
                ok(c.call("httpget /bkt/kept -")).get("bodycrc"));
        assertEquals(204, c.call("http DELETE /bkt/dropped uploadId=" + dropped + " -").status());
        assertEquals(404, c.call("http HEAD /bkt/dropped - -").status());
        String left = text(ok(c.call("http GET /bkt uploads -")));
        assertFalse(left, left.contains(kept) || left.contains(dropped));
        awaitQuietAndEachEndedOnce();
    }

    /** After a restart Pax Web serves the servlet, and its optional RDMA references rebind, a moment later. */
    private void awaitGatewayServes(RdmaChild c) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Answer probe;
        do {
            probe = c.call("get rc /bkt/probe - 4096");
            if (probe.status() == 404 && "NoSuchKey".equals(probe.get("code"))) {
                return; // PREPARE reached the store through the RC route (Pax Web's own 404 has no S3 code)
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the gateway's RC route did not come back: " + probe.line());
    }
}
