package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.Reader;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * Every objrdma PID in a running Karaf: each default etc file a feature ships ({@code <pid>.cfg}, or
 * {@code <pid>.cfg.sample} for the PIDs that start a component only once configured), and for each of its
 * properties the metatype the MetaTypeService serves for that PID declares it with the shipped value as its
 * default, and {@code config:meta <pid>} prints it on a row with that default. The two features outside
 * the umbrella (objrdma-store-s3, objrdma-metrics) are installed first, so their PIDs are covered too.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class MetatypeIT extends ObjRdmaTestSupport {

    /** Every PID a feature ships a default etc file for (features/src/main/cfg). */
    static final List<String> PIDS = List.of("org.objrdma.transport.tcp", "org.objrdma.staging",
            "org.objrdma.session", "org.objrdma.verbs", "org.objrdma.cuobj", "org.objrdma.store.fs",
            "org.objrdma.store.s3", "org.objrdma.s3", "org.objrdma.metrics");

    /** The one property a component writes back into its etc file (the fs store's generated credential). */
    private static final String GENERATED = "org.objrdma.store.fs/credentials";

    @Configuration
    public Option[] config() {
        // installed before the probe: a feature:install from the test refreshes bundles under its own shell job
        return options(org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features(featuresUrl(),
                "objrdma-store-s3", "objrdma-metrics"));
    }

    @Test
    public void configMetaShowsEveryShippedPropertyWithItsDefaultForEveryPid() throws Exception {
        MetaTypeService metatype = waitForService(MetaTypeService.class, null);
        List<String> problems = new ArrayList<>();
        for (String pid : PIDS) {
            Properties shipped = shipped(pid);
            Map<String, AttributeDefinition> declared = declared(metatype, pid);
            String meta = executeCommand("config:meta " + pid);
            for (String property : shipped.stringPropertyNames()) {
                String value = shipped.getProperty(property).strip();
                AttributeDefinition ad = declared.get(property);
                if (ad == null) {
                    problems.add(pid + ": " + property + " has no metatype");
                    continue;
                }
                String defaultValue = ad.getDefaultValue() == null ? "" : String.join(",", ad.getDefaultValue());
                if (GENERATED.equals(pid + "/" + property)) {
                    value = defaultValue; // the component wrote its generated credential into the file
                }
                if (!defaultValue.equals(value)) {
                    problems.add(pid + ": " + property + " ships '" + value + "', metatype default '" + defaultValue + "'");
                }
                String row = row(meta, property);
                if (row == null) {
                    problems.add(pid + ": " + property + " not in config:meta " + pid + "\n" + meta);
                } else if (!value.isEmpty() && !row.contains(value)) {
                    problems.add(pid + ": config:meta row of " + property + " lacks its default '" + value + "': " + row);
                }
            }
        }
        assertEquals(String.join("\n", problems), List.of(), problems);
    }

    /** The etc file a feature's configfile wrote for {@code pid}. */
    private static Properties shipped(String pid) throws Exception {
        File etc = new File(System.getProperty("karaf.etc"));
        File cfg = new File(etc, pid + ".cfg");
        if (!cfg.isFile()) {
            cfg = new File(etc, pid + ".cfg.sample");
        }
        assertTrue(pid + ": no shipped " + cfg, cfg.isFile());
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(cfg.toPath())) {
            p.load(r);
        }
        assertTrue(pid + ": " + cfg + " sets nothing", !p.isEmpty());
        return p;
    }

    /** Property id → definition, from the metatype of whichever objrdma bundle designates {@code pid}. */
    private Map<String, AttributeDefinition> declared(MetaTypeService metatype, String pid) {
        for (Bundle b : objrdmaBundles()) {
            MetaTypeInformation info = metatype.getMetaTypeInformation(b);
            if (info != null && List.of(info.getPids()).contains(pid)) {
                ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
                Map<String, AttributeDefinition> out = new TreeMap<>();
                for (AttributeDefinition ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
                    out.put(ad.getID(), ad);
                }
                return out;
            }
        }
        assertNotNull(pid + ": no objrdma bundle's metatype designates it", null);
        return Map.of();
    }

    /** The line of config:meta's table whose first cell is {@code property}. */
    private static String row(String meta, String property) {
        for (String line : meta.split("\\R")) {
            String first = line.strip().split("\\s*\\|\\s*|\\s+", 2)[0];
            if (first.equals(property)) {
                return line;
            }
        }
        return null;
    }
}
