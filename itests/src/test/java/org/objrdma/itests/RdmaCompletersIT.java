package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.TreeSet;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.apache.karaf.shell.support.parsing.CommandLineImpl;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Transport;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.OptionUtils;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.karaf.options.KarafDistributionOption;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The completers of the rdma:* commands, asked through Karaf's own completion path (the command's completer
 * from the shell session's registry, as the console's tab key asks it), against the service state read in
 * the same test: {@code rdma:sessions --cancel} offers the live session ids, {@code rdma:credentials remove}
 * the access keys and never a secret, {@code rdma:channels --transport} the transport names,
 * {@code rdma:transports pin} the consumers.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaCompletersIT extends ObjRdmaTestSupport {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("completers-it:alice");
    private static final EndpointInfo NEVER_DIALED = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 9), 0,
            new byte[16]);

    @Configuration
    public Option[] config() {
        // the session this test prepares names a loopback client endpoint, which the allow list must permit
        return OptionUtils.combine(baseOptions(), KarafDistributionOption.editConfigurationFilePut(
                "etc/org.objrdma.session.cfg", "allow.addresses", "127.0.0.0/8,::1"));
    }

    @Test
    public void sessionIdsAreOfferedForCancel() throws Exception {
        SessionManager sessions = waitForService(SessionManager.class, null);
        SessionResult<PrepareResponse> prepared = sessions.prepare(new PrepareRequest(ALICE, Op.PUT,
                "/completers-it/a", 0, 4096, 1, 0x61, NEVER_DIALED, null));
        assertTrue(prepared.status().toString(), prepared.status().isOk());
        SessionId id = prepared.value().sessionId();
        try {
            TreeSet<String> live = new TreeSet<>();
            sessions.snapshot().forEach(s -> live.add(s.sessionId().hex()));
            assertEquals(live, new TreeSet<>(complete("rdma:sessions", "--cancel", "")));
            assertEquals(List.of(id.hex()), complete("rdma:sessions", "--cancel", id.hex().substring(0, 12)));
        } finally {
            sessions.cancel(id, ALICE);
        }
        await("the session gone", SERVICE_TIMEOUT, () -> sessions.snapshot().stream().noneMatch(s -> s.sessionId().equals(id)));
        assertFalse(complete("rdma:sessions", "--cancel", "").contains(id.hex()));
    }

    @Test
    public void accessKeysButNoSecretsAreOfferedForRemove() throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        await("a configured credential", SERVICE_TIMEOUT, () -> !credentials(ca).isEmpty());
        executeCommand("rdma:credentials add COMPLETERSKEY");
        try {
            TreeSet<String> keys = new TreeSet<>();
            List<String> secrets = new ArrayList<>();
            for (String entry : credentials(ca).split(",")) {
                keys.add(entry.substring(0, entry.indexOf(':')).strip());
                secrets.add(entry.substring(entry.indexOf(':') + 1).strip());
            }
            assertTrue(keys.contains("COMPLETERSKEY"));
            List<String> offered = complete("rdma:credentials", "remove", "");
            assertEquals(keys, new TreeSet<>(offered));
            for (String secret : secrets) {
                assertFalse("a secret offered for completion", offered.contains(secret));
            }
            assertEquals(List.of("COMPLETERSKEY"), complete("rdma:credentials", "remove", "COMPLETERS"));
        } finally {
            executeCommand("rdma:credentials remove COMPLETERSKEY");
        }
    }

    @Test
    public void transportNamesAndConsumersAreOffered() throws Exception {
        waitForService(Transport.class, "(objrdma.transport.name=tcp)");
        waitForService(SessionManager.class, null);
        TreeSet<String> names = new TreeSet<>();
        for (ServiceReference<Transport> ref : bundleContext.getServiceReferences(Transport.class, null)) {
            names.add(String.valueOf(ref.getProperty(Transport.PROPERTY_NAME)));
        }
        assertEquals(names, new TreeSet<>(complete("rdma:channels", "--transport", "")));
        List<String> consumers = complete("rdma:transports", "pin", "");
        assertTrue(consumers.toString(), consumers.contains("org.objrdma.session"));
        assertTrue(consumers.toString(), consumers.contains("org.objrdma.staging"));
        assertEquals(List.of("org.objrdma.session"), complete("rdma:transports", "pin", "org.objrdma.sess"));
    }

    private static String credentials(ConfigurationAdmin ca) {
        try {
            Dictionary<String, Object> p = ca.getConfiguration("org.objrdma.store.fs", null).getProperties();
            return p == null || p.get("credentials") == null ? "" : p.get("credentials").toString();
        } catch (Exception e) {
            return "";
        }
    }

    /**
     * What the console would offer for the last of {@code words} (the cursor at its end), stripped of the
     * trailing space Karaf's completers append to a whole candidate.
     */
    private List<String> complete(String... words) throws Exception {
        SessionFactory factory = waitForService(SessionFactory.class, null);
        String[] scopeAndName = words[0].split(":");
        String buffer = String.join(" ", words);
        String last = words[words.length - 1];
        return runAs(subject("karaf", "admin", "manager", "viewer"), () -> {
            PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            Session session = factory.create(new ByteArrayInputStream(new byte[0]), out, out);
            try {
                Completer completer = session.getRegistry().getCommand(scopeAndName[0], scopeAndName[1]).getCompleter(true);
                List<String> candidates = new ArrayList<>();
                completer.complete(session, new CommandLineImpl(words, words.length - 1, last.length(), buffer.length(),
                        buffer), candidates);
                List<String> stripped = new ArrayList<>();
                for (String c : candidates) {
                    stripped.add(c.strip());
                }
                return stripped;
            } finally {
                session.close();
            }
        });
    }
}
