package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Transport;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.SatisfiedReferenceDTO;

/**
 * Every rdma:* command against the service state it reports, read in the same test (the way Karaf's own
 * itests check a command against its service): transports and their consumers through SCR's DTOs, a pin
 * through Config Admin, the staging pool while a lease is out, sessions with cancel, counters and rates,
 * store buckets and usage, credentials, verbs devices; a bad value refused with nothing changed.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaShellIT extends ObjRdmaTestSupport {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("shell-it:alice");
    private static final PrincipalId BOB = PrincipalId.fromCanonical("shell-it:bob");
    private static final EndpointInfo NEVER_DIALED = new EndpointInfo.Tcp(
            new java.net.InetSocketAddress("127.0.0.1", 9), 0, new byte[16]);
    private static final String SESSION_COMPONENT = "org.objrdma.session";
    private static final String STORE_PID = "org.objrdma.store.fs";

    @Inject
    ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() {
        // the sessions these tests prepare name a client endpoint on loopback, which the session manager
        // refuses unless its allow list permits it
        return org.ops4j.pax.exam.OptionUtils.combine(baseOptions(),
                org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut(
                        "etc/org.objrdma.session.cfg", "allow.addresses", "127.0.0.0/8,::1"));
    }

    /** The rows of --no-format tables (tab separated; ShellTable prints no header without format). */
    private static List<String[]> rows(String output) {
        List<String[]> rows = new ArrayList<>();
        for (String line : output.split("\\R")) {
            if (line.contains("\t")) {
                String[] cells = line.split("\t");
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i].strip(); // no-format still pads cells to the column width
                }
                rows.add(cells);
            }
        }
        return rows;
    }

    private static String[] rowStartingWith(String output, String first) {
        for (String[] row : rows(output)) {
            if (row[0].equals(first)) {
                return row;
            }
        }
        throw new AssertionError("no row starting with " + first + " in:\n" + output);
    }

    private List<Long> boundTransportIds(String component) {
        ComponentDescriptionDTO d = scr.getComponentDescriptionDTOs().stream()
                .filter(x -> x.name.equals(component)).findFirst().orElseThrow();
        List<Long> ids = new ArrayList<>();
        for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
            for (SatisfiedReferenceDTO r : c.satisfiedReferences) {
                if (r.name.equals("transport")) {
                    for (var s : r.boundServices) {
                        ids.add(s.id);
                    }
                }
            }
        }
        return ids;
    }

    @Test
    public void transportsListsEveryTransportAndTheOneEachConsumerBound() throws Exception {
        waitForService(Transport.class, "(objrdma.transport.name=tcp)");
        waitForService(SessionManager.class, null);
        String out = executeCommand("rdma:transports --no-format");
        List<ServiceReference<Transport>> refs = new ArrayList<>(bundleContext.getServiceReferences(Transport.class, null));
        assertFalse(refs.isEmpty());
        for (ServiceReference<Transport> ref : refs) {
            String name = (String) ref.getProperty(Transport.PROPERTY_NAME);
            String[] row = rowStartingWith(out, name);
            assertEquals(ref.getProperty(Transport.PROPERTY_LEVEL), row[1]);
            int ranking = ref.getProperty(Constants.SERVICE_RANKING) instanceof Integer i ? i : 0;
            assertEquals(String.valueOf(ranking), row[4]);
            assertEquals(String.valueOf(ref.getProperty(Constants.SERVICE_ID)), row[6]);
        }
        List<Long> bound = boundTransportIds(SESSION_COMPONENT);
        assertEquals(1, bound.size());
        ServiceReference<?> boundRef = bundleContext.getServiceReferences((String) null,
                "(" + Constants.SERVICE_ID + "=" + bound.get(0) + ")")[0];
        String[] consumer = rowStartingWith(out, SESSION_COMPONENT);
        assertEquals("transport", consumer[1]);
        assertEquals(boundRef.getProperty(Transport.PROPERTY_NAME) + "#" + bound.get(0), consumer[2]);
        assertTrue(rowStartingWith(out, (String) boundRef.getProperty(Transport.PROPERTY_NAME))[7]
                .contains(SESSION_COMPONENT + ".transport"));
    }

    @Test
    public void channelsShowsALiveChannelOfTheTcpTransportUntilItCloses() throws Exception {
        Transport tcp = waitForService(Transport.class, "(objrdma.transport.name=tcp)");
        long[] closedIds = new long[2];
        try (org.objrdma.api.transport.Channel accepting = tcp.openChannel(org.objrdma.api.transport.ChannelOptions.DEFAULT);
                org.objrdma.api.transport.Channel dialing = tcp.openChannel(org.objrdma.api.transport.ChannelOptions.DEFAULT)) {
            closedIds[0] = accepting.id();
            closedIds[1] = dialing.id();
            dialing.connect(accepting.localEndpoint());
            await("both channels connected in rdma:channels", SERVICE_TIMEOUT, () -> {
                try {
                    String out = executeCommand("rdma:channels --no-format --transport tcp");
                    return "CONNECTED".equals(channelRow(out, dialing.id())[2])
                            && "CONNECTED".equals(channelRow(out, accepting.id())[2]);
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            String out = executeCommand("rdma:channels --no-format");
            EndpointInfo.Tcp agent = (EndpointInfo.Tcp) accepting.localEndpoint();
            String[] row = channelRow(out, dialing.id());
            assertEquals(agent.address().getPort() + "#" + accepting.id(),
                    row[3].substring(row[3].lastIndexOf(':') + 1));
            assertEquals("0", row[4]);
            assertEquals(tcp.channels().stream().filter(c -> c.id() == dialing.id()).findFirst().orElseThrow().peer(),
                    row[3]);
        }
        await("the closed channels gone from rdma:channels", SERVICE_TIMEOUT, () -> {
            try {
                return rows(executeCommand("rdma:channels --no-format --transport tcp")).stream()
                        .noneMatch(row -> row[1].equals(String.valueOf(closedIds[0])) || row[1].equals(String.valueOf(closedIds[1])));
            } catch (Exception e) {
                return false;
            }
        });
        try {
            executeCommand("rdma:channels --transport no-such-transport");
            fail("an unknown transport must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("--transport") && e.getMessage().contains("no-such-transport"));
        }
    }

    private static String[] channelRow(String output, long channelId) {
        for (String[] row : rows(output)) {
            if (row[0].equals("tcp") && row[1].equals(String.valueOf(channelId))) {
                return row;
            }
        }
        throw new AssertionError("no tcp channel " + channelId + " in:\n" + output);
    }

    @Test
    public void pinSetsTheConsumersTargetThroughConfigAdminAndAnUnknownTransportChangesNothing() throws Exception {
        waitForService(SessionManager.class, null);
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        try {
            executeCommand("rdma:transports pin " + SESSION_COMPONENT + " no-such-transport");
            fail("pinning to a missing transport must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("no-such-transport"));
        }
        Dictionary<String, Object> before = ca.getConfiguration(SESSION_COMPONENT, null).getProperties();
        assertTrue(before == null || before.get("transport.target") == null);

        String out = executeCommand("rdma:transports pin " + SESSION_COMPONENT + " tcp");
        // the session manager declares no target of its own, so the pin is the name alone (a declared one is
        // kept beside it: (&(objrdma.transport.name=tcp)<declared>))
        String pinned = (String) ca.getConfiguration(SESSION_COMPONENT, null).getProperties().get("transport.target");
        assertEquals("(objrdma.transport.name=tcp)", pinned);
        assertTrue(out, out.contains("transport.target = " + pinned));
        await("the session manager bound to tcp under the pinned target", SERVICE_TIMEOUT, () -> {
            try {
                String listing = executeCommand("rdma:transports --no-format");
                String[] row = rowStartingWith(listing, SESSION_COMPONENT);
                return row[2].startsWith("tcp#") && row[3].equals(pinned)
                        && row[4].equals("ACTIVE");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        ServiceReference<Transport> tcp = bundleContext.getServiceReferences(Transport.class,
                "(objrdma.transport.name=tcp)").iterator().next();
        assertEquals(List.of((Long) tcp.getProperty(Constants.SERVICE_ID)), boundTransportIds(SESSION_COMPONENT));

        String unpinned = executeCommand("rdma:transports unpin " + SESSION_COMPONENT);
        assertTrue(unpinned, unpinned.contains("removed"));
        assertEquals(null, ca.getConfiguration(SESSION_COMPONENT, null).getProperties().get("transport.target"));
    }

    @Test
    public void poolShowsTheLeaseOutAndTheClassesStatsReports() throws Exception {
        StagingPool pool = waitForService(StagingPool.class, null);
        try (StagingLease lease = pool.borrow(4096, ALICE, "shell-it")) {
            StagingStats stats = pool.stats();
            String out = executeCommand("rdma:pool --no-format");
            List<String[]> rows = rows(out);
            String[] totals = rows.get(0);
            assertEquals(String.valueOf(stats.borrowed()), totals[0]);
            assertTrue(stats.borrowed() >= 1);
            assertEquals(String.valueOf(stats.bytesBorrowed()), totals[2]);
            assertEquals(String.valueOf(pool.maxBufferSize()), totals[4]);
            for (StagingStats.SizeClass c : stats.classes()) {
                String[] row = rowStartingWith(out, String.valueOf(c.bufferSize()));
                assertEquals(String.valueOf(c.borrowed()), row[1]);
                assertEquals(String.valueOf(c.idle()), row[2]);
            }
            assertTrue(lease.size() >= 4096);
        }
        assertEquals(0, pool.stats().borrowed());
        assertEquals("0", rows(executeCommand("rdma:pool --no-format")).get(0)[0]);
    }

    @Test
    public void sessionsListsFiltersByPrincipalAndCancelsAsTheOwner() throws Exception {
        SessionManager sessions = waitForService(SessionManager.class, null);
        SessionResult<PrepareResponse> a = sessions.prepare(new PrepareRequest(ALICE, Op.PUT, "/shell-it/a", 0, 4096,
                1, 0x51, NEVER_DIALED, null));
        SessionResult<PrepareResponse> b = sessions.prepare(new PrepareRequest(BOB, Op.PUT, "/shell-it/b", 0, 4096,
                2, 0x52, NEVER_DIALED, null));
        assertTrue(a.status().toString(), a.status().isOk());
        assertTrue(b.status().toString(), b.status().isOk());
        SessionId aId = a.value().sessionId();
        SessionId bId = b.value().sessionId();
        try {
            String all = executeCommand("rdma:sessions --no-format");
            for (var s : sessions.snapshot()) {
                String[] row = rowStartingWith(all, s.sessionId().hex());
                assertEquals(s.op().name(), row[1]);
                assertEquals(s.target(), row[2]);
                assertEquals(s.state().name(), row[3]);
            }
            String alice = executeCommand("rdma:sessions --no-format --principal " + ALICE.toHex());
            assertTrue(alice.contains(aId.hex()));
            assertFalse(alice.contains(bId.hex()));

            try {
                executeCommand("rdma:sessions --cancel " + aId.hex() + " --principal " + BOB.toHex());
                fail("bob must not cancel alice's session");
            } catch (IllegalStateException e) {
                assertTrue(e.getMessage(), e.getMessage().contains(aId.hex()));
            }
            assertTrue(sessions.snapshot().stream().anyMatch(s -> s.sessionId().equals(aId)));
            try {
                executeCommand("rdma:sessions --cancel not-an-id --principal " + ALICE.toHex());
                fail("a malformed id must be refused");
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("--cancel"));
            }
            String cancelled = executeCommand("rdma:sessions --cancel " + aId.hex() + " --principal " + ALICE.toHex());
            assertTrue(cancelled, cancelled.contains("cancelled"));
            await("alice's session gone", SERVICE_TIMEOUT,
                    () -> sessions.snapshot().stream().noneMatch(s -> s.sessionId().equals(aId)));
            assertFalse(executeCommand("rdma:sessions --no-format").contains(aId.hex()));
        } finally {
            sessions.cancel(aId, ALICE);
            sessions.cancel(bId, BOB);
        }
    }

    @Test
    public void statsPrintsEveryCounterAndARateOverAnInterval() throws Exception {
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        StagingPool pool = waitForService(StagingPool.class, null);
        long before = telemetry.value(Counter.STAGING_BORROWS);
        String out = executeCommand("rdma:stats --no-format");
        for (Counter c : Counter.values()) {
            rowStartingWith(out, c.id());
        }
        for (org.objrdma.api.telemetry.Latency l : org.objrdma.api.telemetry.Latency.values()) {
            assertEquals(6, rowStartingWith(out, l.id()).length); // name, count, p50, p99, max, description
        }
        long shown = Long.parseLong(rowStartingWith(out, Counter.STAGING_BORROWS.id())[1]);
        assertTrue(shown >= before && shown <= telemetry.value(Counter.STAGING_BORROWS));

        CompletableFuture<String> sampled = CompletableFuture.supplyAsync(() -> {
            try {
                return executeCommand("rdma:stats --no-format --interval 2");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(700);
        for (int i = 0; i < 3; i++) {
            pool.borrow(4096, ALICE, "shell-it-stats").close();
        }
        String[] row = rowStartingWith(sampled.get(), Counter.STAGING_BORROWS.id());
        assertTrue(String.join(" ", row), Long.parseLong(row[2]) >= 3);
        assertTrue(String.join(" ", row), Double.parseDouble(row[3]) > 0);
        try {
            executeCommand("rdma:stats --interval 99999");
            fail("an interval out of range must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("--interval"));
        }
    }

    private String configuredCredentials(ConfigurationAdmin ca) throws Exception {
        Dictionary<String, Object> p = ca.getConfiguration(STORE_PID, null).getProperties();
        return p == null || p.get("credentials") == null ? "" : p.get("credentials").toString();
    }

    @Test
    public void credentialsAddPrintsTheSecretOnceListShowsKeysAndStoreShowsUsage() throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        await("a generated first credential", SERVICE_TIMEOUT, () -> {
            try {
                return !configuredCredentials(ca).isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        String added = executeCommand("rdma:credentials add SHELLITKEY");
        Matcher secret = Pattern.compile("Secret key: (\\S+)").matcher(added);
        assertTrue(added, secret.find());
        assertTrue(configuredCredentials(ca).contains("SHELLITKEY:" + secret.group(1)));

        String list = executeCommand("rdma:credentials --no-format");
        assertTrue(list.contains("SHELLITKEY"));
        assertFalse("list must never print a secret", list.contains(secret.group(1)));
        for (String entry : configuredCredentials(ca).split(",")) {
            String key = entry.substring(0, entry.indexOf(':'));
            assertTrue(list.contains(key));
            assertFalse(list.contains(entry.substring(entry.indexOf(':') + 1)));
        }

        String spec = configuredCredentials(ca);
        try {
            executeCommand("rdma:credentials add bad/key");
            fail("a malformed key must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("credentials"));
        }
        try {
            executeCommand("rdma:credentials add SHELLITKEY");
            fail("a duplicate key must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("exists"));
        }
        assertEquals(spec, configuredCredentials(ca));

        // the store restarts with the new key; its bucket and object show in rdma:store
        ObjectStore store = storeKnowing("SHELLITKEY");
        store.createBucket("SHELLITKEY", "shell-it-bucket");
        byte[] body = new byte[12345];
        store.put("shell-it-bucket", "k1", new ByteArrayInputStream(body), body.length, PutOptions.DEFAULT);
        store.put("shell-it-bucket", "k2", new ByteArrayInputStream(new byte[5]), 5, PutOptions.DEFAULT);
        String[] row = rowStartingWith(executeCommand("rdma:store --no-format --owner SHELLITKEY"), store.name());
        assertEquals("shell-it-bucket", row[3]);
        assertEquals("SHELLITKEY", row[4]);
        assertEquals("2", row[6]);
        assertEquals(String.valueOf(12345 + 5), row[7]);
        store.delete("shell-it-bucket", "k1");
        store.delete("shell-it-bucket", "k2");
        store.deleteBucket("shell-it-bucket");

        String removed = executeCommand("rdma:credentials remove SHELLITKEY");
        assertTrue(removed, removed.contains("removed"));
        assertFalse(configuredCredentials(ca).contains("SHELLITKEY"));
        try {
            executeCommand("rdma:credentials remove SHELLITKEY");
            fail("removing a missing key must be refused");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("SHELLITKEY"));
        }
    }

    private ObjectStore storeKnowing(String accessKey) throws Exception {
        java.util.concurrent.atomic.AtomicReference<ObjectStore> found = new java.util.concurrent.atomic.AtomicReference<>();
        await("an ObjectStore knowing " + accessKey, SERVICE_TIMEOUT, () -> {
            try {
                for (ServiceReference<ObjectStore> ref : bundleContext.getServiceReferences(ObjectStore.class, null)) {
                    ObjectStore s = bundleContext.getService(ref);
                    if (s != null && s.secretKey(accessKey).isPresent()) {
                        found.set(s);
                        return true;
                    }
                }
            } catch (Exception e) {
                return false;
            }
            return false;
        });
        return found.get();
    }

    @Test
    public void devicesListsEveryVerbsDeviceService() throws Exception {
        String out = executeCommand("rdma:devices --no-format");
        ServiceReference<?>[] devices = bundleContext.getAllServiceReferences("org.objrdma.verbs.VerbsDevice", null);
        int count = devices == null ? 0 : devices.length;
        assertEquals(out, count, rows(out).size()); // one row per device
        if (devices != null) {
            for (ServiceReference<?> d : devices) {
                rowStartingWith(out, String.valueOf(d.getProperty("objrdma.verbs.device")));
            }
        }
        ServiceReference<?>[] runtime = bundleContext.getAllServiceReferences("org.objrdma.verbs.VerbsRuntime", null);
        if (runtime != null) {
            assertTrue(out, out.contains("available=" + runtime[0].getProperty("objrdma.verbs.available")));
        }
    }

    @Test
    public void aCfgStringRankingIsPublishedAsAnIntegerAndABadOneIsRefusedNamingTheProperty() throws Exception {
        String pid = "org.objrdma.transport.tcp";
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        Dictionary<String, Object> original = ca.getConfiguration(pid, null).getProperties();
        Hashtable<String, Object> ranked = new Hashtable<>();
        if (original != null) {
            for (var k = original.keys(); k.hasMoreElements(); ) {
                String key = k.nextElement();
                ranked.put(key, original.get(key));
            }
        }
        ranked.put("service.ranking", "7"); // what a Karaf .cfg file delivers
        long serviceId = (Long) bundleContext.getServiceReferences(Transport.class, "(objrdma.transport.name=tcp)")
                .iterator().next().getProperty(Constants.SERVICE_ID);
        try {
            ca.getConfiguration(pid, null).update(ranked);
            await("tcp published with ranking Integer 7", SERVICE_TIMEOUT, () -> {
                try {
                    return bundleContext.getServiceReferences(Transport.class,
                            "(&(objrdma.transport.name=tcp)(service.ranking=7))").stream()
                            .anyMatch(r -> Integer.valueOf(7).equals(r.getProperty(Constants.SERVICE_RANKING)));
                } catch (Exception e) {
                    return false;
                }
            });
            ServiceReference<Transport> live = bundleContext.getServiceReferences(Transport.class,
                    "(objrdma.transport.name=tcp)").iterator().next();
            assertEquals("a ranking change is applied live, without a restart", serviceId,
                    live.getProperty(Constants.SERVICE_ID));
            assertEquals("7", rowStartingWith(executeCommand("rdma:transports --no-format"), "tcp")[4]);

            // a bad value: refused (logged naming service.ranking), the running transport keeps ranking 7
            Hashtable<String, Object> bad = new Hashtable<>(ranked);
            bad.put("service.ranking", "seven");
            ca.getConfiguration(pid, null).update(bad);
            // Config Admin delivers asynchronously: wait for the refusal to be logged, then nothing may have changed
            await("the refusal logged", SERVICE_TIMEOUT, () -> {
                try {
                    return executeCommand("log:display").contains("Configuration of " + pid + " refused");
                } catch (Exception e) {
                    return false;
                }
            });
            List<ServiceReference<Transport>> after = new ArrayList<>(bundleContext.getServiceReferences(Transport.class,
                    "(objrdma.transport.name=tcp)"));
            assertEquals(1, after.size());
            assertEquals(serviceId, after.get(0).getProperty(Constants.SERVICE_ID));
            assertEquals(7, after.get(0).getProperty(Constants.SERVICE_RANKING));
            assertEquals("7", rowStartingWith(executeCommand("rdma:transports --no-format"), "tcp")[4]);
            String log = executeCommand("log:display");
            assertTrue(log, log.contains("Configuration of " + pid + " refused")
                    && log.contains("service.ranking must be a whole number (an int), was 'seven'"));
        } finally {
            if (original == null) {
                ca.getConfiguration(pid, null).delete();
            } else {
                ca.getConfiguration(pid, null).update(original);
            }
        }
        await("tcp back", SERVICE_TIMEOUT, () -> {
            try {
                return !bundleContext.getServiceReferences(Transport.class, "(objrdma.transport.name=tcp)").isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
    }

    /**
     * The staging pool's default etc file, shipped by its feature, holds every property its metatype
     * declares, and Karaf's config:meta and config:property-list show each of them for the PID.
     */
    @Test
    public void theShippedStagingCfgAndItsMetatypeShowEveryProperty() throws Exception {
        String pid = "org.objrdma.staging";
        java.io.File cfg = new java.io.File(System.getProperty("karaf.etc"), pid + ".cfg");
        assertTrue(cfg + " shipped by feature objrdma-staging", cfg.isFile());
        java.util.Properties shipped = new java.util.Properties();
        try (java.io.Reader r = java.nio.file.Files.newBufferedReader(cfg.toPath())) {
            shipped.load(r);
        }
        org.osgi.framework.Bundle staging = objrdmaBundles().stream()
                .filter(b -> b.getSymbolicName().equals("objrdma-staging")).findFirst().orElseThrow();
        org.osgi.service.metatype.MetaTypeService metatype =
                waitForService(org.osgi.service.metatype.MetaTypeService.class, null);
        org.osgi.service.metatype.ObjectClassDefinition ocd =
                metatype.getMetaTypeInformation(staging).getObjectClassDefinition(pid, null);
        java.util.Set<String> declared = new java.util.TreeSet<>();
        for (org.osgi.service.metatype.AttributeDefinition ad
                : ocd.getAttributeDefinitions(org.osgi.service.metatype.ObjectClassDefinition.ALL)) {
            declared.add(ad.getID());
        }
        // every property set, except the target override, which is there commented out (not pinned)
        java.util.Set<String> set = new java.util.TreeSet<>(declared);
        set.remove("transport.target");
        assertEquals(set, new java.util.TreeSet<>(shipped.stringPropertyNames()));
        assertTrue(java.nio.file.Files.readString(cfg.toPath()).contains("\n#transport.target = "));
        String meta = executeCommand("config:meta " + pid);
        // Config Admin holds the file's values (fileinstall read it); property-list prints "key = value"
        String listed = executeCommand("config:property-list --pid " + pid);
        for (String property : declared) {
            assertTrue(property + " in config:meta\n" + meta, meta.contains(property));
        }
        for (String property : set) {
            assertTrue(property + " in config:property-list\n" + listed,
                    listed.contains(property + " = " + shipped.getProperty(property)));
        }
    }
}
