package org.objrdma.shell.internal;

import java.security.SecureRandom;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.objrdma.wire.UserCredentials;

/**
 * The embedded store's {@code credentials} property ({@code AK:SECRET[,AK:SECRET...]} in PID
 * {@value #PID}) as the shell edits it: read, change one entry, write back through Config Admin, which
 * reactivates the store with the new set. The store validates the whole value again at activation; the
 * checks here only keep a bad edit from being written at all.
 */
final class StoreCredentials {

    static final String PID = "org.objrdma.store.fs";
    static final String PROPERTY = "credentials";

    private final ConfigurationAdmin configurationAdmin;
    private final SecureRandom random = new SecureRandom();

    StoreCredentials(ConfigurationAdmin configurationAdmin) {
        this.configurationAdmin = configurationAdmin;
    }

    /** Access key → secret, in configured order. */
    Map<String, String> read() throws Exception {
        Dictionary<String, Object> properties = configuration().getProperties();
        Object value = properties == null ? null : properties.get(PROPERTY);
        return parse(value == null ? "" : String.valueOf(value));
    }

    /**
     * Adds {@code accessKey} (generated when null) with a fresh secret and returns both; the only place the
     * secret is ever shown.
     */
    Map.Entry<String, String> add(String accessKey) throws Exception {
        String key = accessKey == null ? UserCredentials.randomAccessKey(random) : accessKey;
        if (!UserCredentials.isAccessKey(key)) {
            throw new IllegalArgumentException(PROPERTY + ": access key '" + key
                    + "' must be " + UserCredentials.ACCESS_KEY_RULE + "; nothing changed");
        }
        Map<String, String> all = read();
        if (all.containsKey(key)) {
            throw new IllegalArgumentException(PROPERTY + ": access key " + key + " exists already; nothing changed");
        }
        String secret = UserCredentials.randomSecret(random);
        all.put(key, secret);
        write(all);
        return Map.entry(key, secret);
    }

    void remove(String accessKey) throws Exception {
        Map<String, String> all = read();
        if (!all.containsKey(accessKey)) {
            throw new IllegalArgumentException(PROPERTY + ": no access key " + accessKey + "; nothing changed");
        }
        if (all.size() == 1) {
            throw new IllegalArgumentException(PROPERTY + ": " + accessKey + " is the last access key; the store "
                    + "would generate a new one at once. Add another first; nothing changed");
        }
        all.remove(accessKey);
        write(all);
    }

    private void write(Map<String, String> all) throws Exception {
        Configuration configuration = configuration();
        Dictionary<String, Object> current = configuration.getProperties();
        Hashtable<String, Object> next = new Hashtable<>();
        if (current != null) {
            for (var keys = current.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                next.put(k, current.get(k));
            }
        }
        next.put(PROPERTY, format(all));
        configuration.update(next);
    }

    private Configuration configuration() throws Exception {
        return configurationAdmin.getConfiguration(PID, null);
    }

    static Map<String, String> parse(String spec) {
        Map<String, String> out = new LinkedHashMap<>();
        if (spec.isBlank()) {
            return out;
        }
        for (String entry : spec.split(",")) {
            String e = entry.strip();
            int colon = e.indexOf(':');
            if (colon > 0) {
                out.put(e.substring(0, colon), e.substring(colon + 1));
            }
        }
        return out;
    }

    static String format(Map<String, String> all) {
        return UserCredentials.format(all);
    }
}
