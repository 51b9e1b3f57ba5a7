package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.servlet.Servlet;
import org.junit.After;
import org.junit.Before;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.transport.Transport;
import org.objrdma.itests.rdma.RdmaChild;
import org.objrdma.itests.rdma.RdmaChild.Answer;
import org.objrdma.itests.rdma.RdmaClientMain;
import org.objrdma.itests.rdma.SoftVerbsObjects;
import org.objrdma.itests.rdma.VerbsBaseline;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.ServiceRegistration;

/**
 * The setup the ITs on the software verbs device share: Karaf's gateway on a free HTTP port with two principals,
 * RC sessions and staging on {@code verbs:softrc0}, client JVMs killed after each test, and the leak audit against a
 * {@link VerbsBaseline} taken once staging is quiet. A subclass adds its own configuration and waits; the base's
 * {@code @Before} runs first (JUnit 4), so {@link #device} is there in the subclass's.
 */
public abstract class VerbsItSupport extends ObjRdmaTestSupport {

    protected static final String PORT_PROPERTY = "objrdma.it.http.port";
    protected static final String SOFT_PROPERTY = "objrdma.softverbs";
    protected static final int MIB = 1 << 20;
    /** The staging pool's largest buffer in these ITs. */
    protected static final int BIG = 64 * MIB;
    protected static final Duration AUDIT = Duration.ofSeconds(120);

    private final List<RdmaChild> children = new ArrayList<>();
    protected SoftVerbsObjects device;
    protected VerbsBaseline baseline;
    /** Terminal events of sessions, once {@link #listenForSessionEnds()} was called. */
    protected final List<TerminalEvent> ended = new CopyOnWriteArrayList<>();
    private ServiceRegistration<SessionTerminalListener> endListener;

    /**
     * The options of {@link #options} for the gateway on the software device, then {@code extra} (later entries
     * override earlier ones of the same property). {@code credentials} are {@code access:secret} pairs.
     */
    protected Option[] verbsOptions(String credentials, Option... extra) throws IOException {
        String soft = System.getProperty(SOFT_PROPERTY);
        if (soft == null || !new File(soft).isFile()) {
            throw new IllegalStateException(SOFT_PROPERTY + " must name the software verbs device built by"
                    + " bundles/objrdma-verbs (build it first), was " + soft);
        }
        soft = new File(soft).getCanonicalPath();
        int port = freePort();
        List<Option> o = new ArrayList<>(List.of(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "credentials", credentials),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "fsync", "false"),
                editConfigurationFilePut("etc/org.objrdma.verbs.cfg", "library.path", soft),
                // RC sessions on the verbs transport only (DS greedy ranking would pick it too, once it is there)
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "transport.target",
                        "(objrdma.transport.name=verbs:softrc0)"),
                editConfigurationFilePut("etc/org.objrdma.session.cfg", "dev.name", "softrc0"),
                editConfigurationFilePut("etc/org.objrdma.staging.cfg", "max.buffer.size", String.valueOf(BIG)),
                editConfigurationFilePut("etc/org.objrdma.staging.cfg", "max.bytes.per.principal",
                        String.valueOf(512 * MIB)),
                systemProperty(PORT_PROPERTY).value(String.valueOf(port)),
                systemProperty(SOFT_PROPERTY).value(soft),
                systemProperty(RdmaChild.CLASSPATH_PROPERTY).value(System.getProperty("java.class.path"))));
        o.addAll(List.of(extra));
        return options(o.toArray(Option[]::new));
    }

    @Before
    public void awaitGatewayOnSoftDevice() throws Exception {
        waitForService(ObjectStore.class, null);
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        waitForService(Transport.class, "(objrdma.transport.name=verbs:softrc0)");
        device = SoftVerbsObjects.of(softDevice());
    }

    @After
    public void killClientsAndStopListening() throws InterruptedException {
        killClients();
        if (endListener != null) {
            endListener.unregister();
            endListener = null;
        }
    }

    /** Kills every client JVM of this test (again after the test: a no-op). */
    protected void killClients() throws InterruptedException {
        for (RdmaChild c : children) {
            c.kill();
        }
        children.clear();
    }

    /** Collects the terminal events of sessions into {@link #ended} until the test ends. */
    protected void listenForSessionEnds() {
        endListener = bundleContext.registerService(SessionTerminalListener.class, ended::add, null);
    }

    /**
     * Staging lent 0, no session, Karaf's and the client's device objects back to the baseline, and every session
     * that ended did so once.
     */
    protected void auditWithSessions(RdmaChild client, Answer clientBefore) throws InterruptedException {
        awaitQuiet();
        baseline.audit(client, clientBefore, AUDIT, ObjRdmaTestSupport::await, false);
        Map<String, Integer> count = new ConcurrentHashMap<>();
        ended.forEach(e -> count.merge(e.sessionId().hex(), 1, Integer::sum));
        count.forEach((s, n) -> assertEquals("terminal events of session " + s, 1, (int) n));
    }

    /** The terminal event of {@code session} (hex id), once it came. */
    protected TerminalEvent awaitEnd(String session) throws InterruptedException {
        await("session " + session + " ended", AUDIT,
                () -> ended.stream().anyMatch(e -> e.sessionId().hex().equals(session)));
        return ended.stream().filter(e -> e.sessionId().hex().equals(session)).findFirst().orElseThrow();
    }

    /** A client JVM of this test, killed after it. */
    protected RdmaChild keep(RdmaChild c) {
        children.add(c);
        return c;
    }

    /** Kills client {@code c} now (a test's victim); it is not killed again after the test. */
    protected void killNow(RdmaChild c) throws InterruptedException {
        c.kill();
        children.remove(c);
    }

    protected static int httpPort() {
        return Integer.getInteger(PORT_PROPERTY);
    }

    protected static String softDevice() {
        return System.getProperty(SOFT_PROPERTY);
    }

    protected StagingPool pool() {
        return waitForService(StagingPool.class, null);
    }

    /** The baseline now: call it once staging is quiet. */
    protected void takeBaseline() {
        baseline = VerbsBaseline.take(device, this::pool);
    }

    protected void awaitStagingIdle() throws InterruptedException {
        await("staging lent 0", AUDIT, () -> pool().stats().borrowed() == 0);
    }

    /** Staging lent 0 and no live session. */
    protected void awaitQuiet() throws InterruptedException {
        awaitStagingIdle();
        await("no live session", AUDIT, () -> waitForService(SessionManager.class, null).snapshot().isEmpty());
    }

    protected static Answer ok(Answer a) {
        assertEquals(a.line(), "OK", a.kind());
        return a;
    }

    protected static String crc(byte[] data) {
        return RdmaClientMain.crc(MemorySegment.ofArray(data), data.length);
    }

    protected static String crc(int size, long seed) {
        return crc(RdmaClientMain.random(size, seed));
    }
}
