package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.wire.UserCredentials;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Issue 24 finding 8: the credential the store generates when none is configured is stored into its PID
 * through Config Admin, and the log (captured here: slf4j-simple writes to {@code System.err}) names its
 * access key id and where the secret is, never the secret itself — at activation and when a configuration
 * change removes every credential.
 */
class FsStoreGeneratedSecretLogTest {

    @TempDir
    Path dir;

    /** The credentials specs the component stored through Config Admin. */
    private final List<String> stored = new ArrayList<>();

    private ConfigurationAdmin configurationAdmin() {
        Configuration configuration = (Configuration) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> null;
                    case "update" -> {
                        stored.add((String) ((Dictionary<?, ?>) args[0]).get("credentials"));
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConfiguration")) {
                        return configuration;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> dir.toString();
                    case "registerService" -> Proxy.newProxyInstance(getClass().getClassLoader(),
                            new Class<?>[] {ServiceRegistration.class}, (p, m, a) -> null);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theGeneratedSecretIsStoredAndNeverLogged() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        FsStoreComponent component;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            component = new FsStoreComponent(configurationAdmin(), context(), Map.of("root", dir.resolve("s").toString()));
            // every credential removed while running: a new one is generated the same way
            component.modified(Map.of("root", dir.resolve("s").toString(), "credentials", ""));
            component.deactivate();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(2, stored.size(), "one credential stored at activation, one after the change");
        for (String spec : stored) {
            UserCredentials credentials = UserCredentials.parse(spec);
            Map.Entry<String, String> user = credentials.asMap().entrySet().iterator().next();
            assertTrue(log.contains("generated access key id " + user.getKey()), "the log names the key id: " + log);
            assertFalse(log.contains(user.getValue()), "the secret was logged: " + log);
            // nor any long enough piece of it (a secret cut or wrapped in a message)
            for (int i = 0; i + 12 <= user.getValue().length(); i++) {
                assertFalse(log.contains(user.getValue().substring(i, i + 12)), "part of the secret was logged: " + log);
            }
        }
    }
}
