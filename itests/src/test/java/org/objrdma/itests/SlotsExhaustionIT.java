package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Hashtable;
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
import org.objrdma.itests.rdma.GatedStore;
import org.objrdma.itests.rdma.RdmaChild;
import org.objrdma.itests.rdma.RdmaChild.Answer;
import org.objrdma.itests.rdma.RdmaClientMain;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;

/**
 * Issue 17, "slots exhausted", through the real gateway in Karaf (HTTP, the session manager, the TCP transport, the
 * file store) with the session manager's {@code max.ready.slots} and {@code max.stage.slots} at 1: a READY or a GET
 * PREPARE beyond the slot gets the error table's answer for LIMIT, {@code 429 RdmaResourceLimit} (rc-session.md §1.5),
 * and changes nothing (the refused READY's session stays PREPARED with no terminal event; the refused PREPARE leaves
 * no session and no staging lent); the held one then delivers its bytes, and the refused request succeeds once the
 * slot is free. The READY slot is held by a client JVM frozen in its data phase ({@code --slow}); the stage slot by
 * a GET PREPARE whose staging read waits at a {@link GatedStore} in front of the real file store (the gateway's
 * {@code store.target} names it).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class SlotsExhaustionIT extends ObjRdmaTestSupport {

    private static final String AK = "SLOTSITACCESSKEY0001";
    private static final String SECRET = "slotsItSecret/0123456789abcdefghijklmnop";
    private static final String PORT_PROPERTY = "objrdma.it.http.port";
    private static final int MIB = 1 << 20;
    private static final int BIG = 64 * MIB;
    private static final Duration WAIT = Duration.ofSeconds(120);

    private final GatedStore gate = new GatedStore();
    private final List<TerminalEvent> ended = new CopyOnWriteArrayList<>();
    private final List<RdmaChild> children = new ArrayList<>();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    @Configuration
    public Option[] config() {
        int port = freePort();
        String loopback = "127.0.0.0/8";
        return options(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "credentials", AK + ":" + SECRET),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "fsync", "false"),
                editConfigurationFilePut("etc/org.objrdma.s3.cfg", "store.target", "(objrdma.store=gated)"),
                editConfigurationFilePut("etc/org.objrdma.cuobj.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", loopback),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "max.ready.slots", "1"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "max.stage.slots", "1"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "prep.timeout.ms", "60000"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "exec.timeout.ms", "60000"),
                editConfigurationFilePut("etc/org.objrdma.staging.cfg", "max.buffer.size", String.valueOf(BIG)),
                systemProperty(PORT_PROPERTY).value(String.valueOf(port)),
                systemProperty(RdmaChild.CLASSPATH_PROPERTY).value(System.getProperty("java.class.path")));
    }

    @Before
    public void gatedGateway() throws Exception {
        ObjectStore fs = waitForService(ObjectStore.class, "(objrdma.store=fs)");
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("objrdma.store", "gated");
        registrations.add(bundleContext.registerService(ObjectStore.class, gate.wrap(fs), props));
        registrations.add(bundleContext.registerService(SessionTerminalListener.class, ended::add, null));
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        waitForService(SessionManager.class, null);
    }

    @After
    public void cleanUp() throws Exception {
        gate.open();
        for (RdmaChild c : children) {
            c.kill();
        }
        registrations.forEach(ServiceRegistration::unregister);
    }

    private RdmaChild child() throws Exception {
        RdmaChild c = RdmaChild.start(Integer.getInteger(PORT_PROPERTY), AK, SECRET, new File("client-jvm.log"), "512m");
        children.add(c);
        return c;
    }

    private static Answer ok(Answer a) {
        assertEquals(a.line(), "OK", a.kind());
        return a;
    }

    private static String crc(int size, long seed) {
        byte[] data = RdmaClientMain.random(size, seed);
        return RdmaClientMain.crc(MemorySegment.ofArray(data), data.length);
    }

    private SessionManager sessions() {
        return waitForService(SessionManager.class, null);
    }

    private StagingPool pool() {
        return waitForService(StagingPool.class, null);
    }

    private SessionSnapshot session(String id) {
        return sessions().snapshot().stream().filter(s -> s.sessionId().hex().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("session " + id + " is gone: " + ended));
    }

    private List<TerminalEvent> endsOf(String id) {
        return ended.stream().filter(e -> e.sessionId().hex().equals(id)).toList();
    }

    private void awaitQuietAndEachEndedOnce() throws InterruptedException {
        await("staging lent 0", WAIT, () -> pool().stats().borrowed() == 0 && pool().stats().bytesBorrowed() == 0);
        await("no live session", WAIT, () -> sessions().snapshot().isEmpty());
        Map<String, Integer> count = new ConcurrentHashMap<>();
        ended.forEach(e -> count.merge(e.sessionId().hex(), 1, Integer::sum));
        count.forEach((s, n) -> assertEquals("terminal events of session " + s, 1, (int) n));
    }

    private void ensureObject(RdmaChild c, String key, int size, long seed) throws Exception {
        Answer bucket = c.call("httpput /slots - 0 0");
        assertTrue(bucket.line(), bucket.status() == 200 || "BucketAlreadyOwnedByYou".equals(bucket.get("code")));
        ok(c.call("httpput /slots/" + key + " - " + size + " " + seed));
    }

    /**
     * One READY slot, held by a client frozen in its 64 MiB GET's data phase: a second principal-owned session's READY
     * is {@code 429 RdmaResourceLimit}, its session stays PREPARED and unended, nothing more is lent; the frozen client
     * resumed gets its bytes; the refused READY then succeeds on the same session.
     */
    @Test
    public void aReadyBeyondTheReadySlotsIs429AndSucceedsOnceTheSlotIsFree() throws Exception {
        RdmaChild holder = child();
        ensureObject(holder, "big", BIG, 70);
        ok(holder.call("httpput /slots/small - 4096 71"));
        holder.send("get rc /slots/big - " + BIG + " --slow");
        Answer started = holder.await("STARTED", WAIT);
        String held = started.get("session");
        await("the frozen client's READY holds the slot", WAIT,
                () -> sessions().snapshot().stream().anyMatch(s -> s.sessionId().hex().equals(held)
                        && s.state() != SessionState.PREPARED));

        RdmaChild refused = child();
        refused.send("rcretry /slots/small 4096");
        Answer mid = refused.await("MID", WAIT);
        String waiting = mid.get("session");
        assertTrue(mid.line(), mid.get("first").contains("status=429") && mid.get("first").contains("RdmaResourceLimit"));
        assertEquals("the refused READY left its session as it was", SessionState.PREPARED, session(waiting).state());
        assertTrue("no terminal event for the refused READY's session", endsOf(waiting).isEmpty());
        assertEquals("staging lent: the two sessions' buffers, nothing for the refused READY", 2,
                pool().stats().borrowed());
        assertTrue("the held transfer is still in flight", endsOf(held).isEmpty());

        holder.resume();
        Answer delivered = ok(holder.await("OK|FAIL", WAIT));
        assertEquals(delivered.line(), crc(BIG, 70), delivered.get("crc"));
        assertEquals(TerminalReason.COMPLETED, awaitEnd(held).reason());

        refused.send("go");
        Answer after = ok(refused.await("OK|FAIL", WAIT));
        assertEquals(after.line(), "true:SUCCESS", after.get("outcome"));
        assertEquals(after.line(), crc(4096, 71), after.get("crc"));
        assertEquals(TerminalReason.COMPLETED, awaitEnd(waiting).reason());
        awaitQuietAndEachEndedOnce();
    }

    /**
     * One stage slot, held by a GET PREPARE whose staging read waits at the closed store gate: a second GET PREPARE is
     * {@code 429 RdmaResourceLimit} and leaves no session and no staging behind; with the gate open the held PREPARE
     * answers, its GET delivers the object, and the refused GET succeeds when sent again.
     */
    @Test
    public void aGetPrepareBeyondTheStageSlotsIs429AndSucceedsOnceTheSlotIsFree() throws Exception {
        RdmaChild holder = child();
        ensureObject(holder, "staged", 4 * MIB, 72);
        ok(holder.call("httpput /slots/other - 8192 73"));
        RdmaChild refused = child();
        awaitQuietAndEachEndedOnce();

        gate.close();
        holder.send("get rc /slots/staged - " + 4 * MIB);
        await("the held PREPARE waits in its staging read", WAIT, () -> gate.waiting() == 1);
        assertEquals("one session, the held one", 1, sessions().snapshot().size());
        long lent = pool().stats().bytesBorrowed();
        int endedBefore = ended.size();

        Answer limit = refused.call("get rc /slots/other - 8192");
        assertEquals(limit.line(), 429, limit.status());
        assertEquals(limit.line(), "RdmaResourceLimit", limit.get("code"));
        // refused after its session was created: finishPrepare(false) marks it, the reaper ends it a moment later
        await("the refused PREPARE's session ended once", WAIT, () -> ended.size() == endedBefore + 1);
        await("the refused PREPARE left no session", WAIT, () -> sessions().snapshot().size() == 1);
        await("the refused PREPARE left no staging lent", WAIT, () -> pool().stats().bytesBorrowed() == lent);
        assertTrue("not the held one", ended.get(endedBefore).reason() != TerminalReason.COMPLETED);

        gate.open();
        Answer delivered = ok(holder.await("OK|FAIL", WAIT));
        assertEquals(delivered.line(), crc(4 * MIB, 72), delivered.get("crc"));
        Answer again = ok(refused.call("get rc /slots/other - 8192"));
        assertEquals(again.line(), crc(8192, 73), again.get("crc"));
        awaitQuietAndEachEndedOnce();
    }

    private TerminalEvent awaitEnd(String id) throws InterruptedException {
        await("session " + id + " ended", WAIT, () -> !endsOf(id).isEmpty());
        return endsOf(id).get(0);
    }
}
