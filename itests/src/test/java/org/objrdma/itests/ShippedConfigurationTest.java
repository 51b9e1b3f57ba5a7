package org.objrdma.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The default {@code etc/<pid>.cfg} files the features ship ({@code features/src/main/cfg}) against the
 * metatype bnd generated for every objrdma bundle ({@code target/classes/OSGI-INF/metatype}, built earlier in
 * the reactor): one file per designated PID, the same property set both ways, each value the metatype
 * default, each property with a comment, and each file installed by a {@code configfile} of the features
 * repository that does not overwrite a file already there.
 */
class ShippedConfigurationTest {
    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    private static final Path CFG_DIR = ROOT.resolve("features/src/main/cfg");

    /** PID → (property → default, "" when the metatype declares none), from every bundle's metatype. */
    private static Map<String, Map<String, String>> metatype() throws Exception {
        Map<String, Map<String, String>> out = new TreeMap<>();
        try (DirectoryStream<Path> bundles = Files.newDirectoryStream(ROOT.resolve("bundles"))) {
            for (Path bundle : bundles) {
                Path dir = bundle.resolve("target/classes/OSGI-INF/metatype");
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                try (DirectoryStream<Path> xmls = Files.newDirectoryStream(dir, "*.xml")) {
                    for (Path xml : xmls) {
                        readMetatype(xml, out);
                    }
                }
            }
        }
        return out;
    }

    private static void readMetatype(Path xml, Map<String, Map<String, String>> out) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        Document doc = factory.newDocumentBuilder().parse(xml.toFile());
        Map<String, Map<String, String>> ocds = new LinkedHashMap<>();
        NodeList ocdNodes = doc.getElementsByTagName("OCD");
        for (int i = 0; i < ocdNodes.getLength(); i++) {
            Element ocd = (Element) ocdNodes.item(i);
            Map<String, String> ads = new LinkedHashMap<>();
            NodeList adNodes = ocd.getElementsByTagName("AD");
            for (int j = 0; j < adNodes.getLength(); j++) {
                Element ad = (Element) adNodes.item(j);
                // a metatype default is a comma-separated list where a backslash-comma is a comma inside one value:
                // a single-valued property's default 502 backslash-comma 503 is the one value "502,503"
                ads.put(ad.getAttribute("id"), ad.getAttribute("default").replace("\\,", ","));
            }
            ocds.put(ocd.getAttribute("id"), ads);
        }
        NodeList designates = doc.getElementsByTagName("Designate");
        for (int i = 0; i < designates.getLength(); i++) {
            Element designate = (Element) designates.item(i);
            String ocdRef = ((Element) designate.getElementsByTagName("Object").item(0)).getAttribute("ocdref");
            out.put(designate.getAttribute("pid"), ocds.get(ocdRef));
        }
    }

    private static Properties load(Path cfg) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(cfg, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    /** The DS target overrides, shipped commented out ({@code #x.target = default}) so that none is pinned. */
    private static Map<String, String> commentedTargets(Path cfg) throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (String line : Files.readAllLines(cfg, StandardCharsets.UTF_8)) {
            Matcher m = COMMENTED_TARGET.matcher(line);
            if (m.matches()) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    private static final Pattern COMMENTED_TARGET = Pattern.compile("#([A-Za-z][\\w.]*\\.target) = (.*)");

    @Test
    void everyMetatypePropertyIsShippedWithItsDefaultAndViceVersa() throws Exception {
        Map<String, Map<String, String>> metatype = metatype();
        // guards against a vacuous pass when the bundles were not built: the PIDs objrdma has today
        assertTrue(metatype.keySet().containsAll(List.of("org.objrdma.transport.tcp", "org.objrdma.verbs",
                "org.objrdma.staging", "org.objrdma.session", "org.objrdma.cuobj", "org.objrdma.store.fs",
                "org.objrdma.s3", "org.objrdma.store.s3")), "metatype found for " + metatype.keySet());
        TreeSet<String> shipped = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(CFG_DIR, "*.cfg")) {
            files.forEach(f -> shipped.add(f.getFileName().toString().replaceFirst("\\.cfg$", "")));
        }
        assertEquals(new TreeSet<>(metatype.keySet()), shipped, "a shipped cfg for every designated PID, no other");
        for (Map.Entry<String, Map<String, String>> pid : metatype.entrySet()) {
            Path cfg = CFG_DIR.resolve(pid.getKey() + ".cfg");
            Properties p = load(cfg);
            Map<String, String> targets = commentedTargets(cfg);
            assertTrue(p.stringPropertyNames().stream().noneMatch(k -> k.endsWith(".target")),
                    cfg + ": a target override must be shipped commented out, or it pins the reference");
            TreeSet<String> inFile = new TreeSet<>(p.stringPropertyNames());
            inFile.addAll(targets.keySet());
            assertEquals(new TreeSet<>(pid.getValue().keySet()), inFile, cfg + ": properties against the metatype");
            pid.getValue().forEach((property, defaultValue) -> assertEquals(defaultValue,
                    property.endsWith(".target") ? targets.get(property) : p.getProperty(property),
                    cfg + ": " + property + " must be its metatype default"));
        }
    }

    @Test
    void everyShippedPropertyHasACommentAboveIt() throws Exception {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(CFG_DIR, "*.cfg")) {
            for (Path cfg : files) {
                List<String> lines = Files.readAllLines(cfg, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (!line.isBlank() && !line.startsWith("#")) {
                        assertTrue(i > 0 && lines.get(i - 1).startsWith("# "), cfg + " line " + (i + 1)
                                + " (" + line + ") has no comment line above it");
                    }
                }
            }
        }
    }

    @Test
    void everyShippedFileIsAConfigfileThatKeepsUsersEdits() throws Exception {
        String features = Files.readString(ROOT.resolve("features/src/main/feature/feature.xml"));
        Matcher m = Pattern.compile("<configfile finalname=\"/etc/([^\"]+)\" override=\"([a-z]+)\">"
                + "mvn:org\\.objrdma/objrdma-features/\\$\\{project\\.version}/cfg/([^<]+)</configfile>")
                .matcher(features);
        Map<String, String> installed = new TreeMap<>();
        List<String> overriding = new ArrayList<>();
        while (m.find()) {
            installed.put(m.group(3), m.group(1));
            if (!m.group(2).equals("false")) {
                overriding.add(m.group(1));
            }
        }
        assertEquals(List.of(), overriding, "configfiles that would overwrite a user's file");
        TreeSet<String> shipped = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(CFG_DIR, "*.cfg")) {
            files.forEach(f -> shipped.add(f.getFileName().toString().replaceFirst("\\.cfg$", "")));
        }
        assertEquals(shipped, installed.keySet(), "a configfile for every shipped cfg");
        String pomText = Files.readString(ROOT.resolve("features/pom.xml"));
        for (String pid : shipped) {
            assertTrue(pomText.contains("src/main/cfg/" + pid + ".cfg</file><type>cfg</type><classifier>" + pid
                    + "</classifier>"), "features/pom.xml attaches " + pid + ".cfg");
            // components that must not start unconfigured get an inert .cfg.sample; the others their .cfg
            String expected = pid + (requiresConfiguration(pid) ? ".cfg.sample" : ".cfg");
            assertEquals(expected, installed.get(pid), "file name the feature installs for " + pid);
        }
    }

    /** The components whose configuration policy is REQUIRE, read from their DS descriptors. */
    private static boolean requiresConfiguration(String pid) throws IOException {
        try (DirectoryStream<Path> bundles = Files.newDirectoryStream(ROOT.resolve("bundles"))) {
            for (Path bundle : bundles) {
                Path descriptor = bundle.resolve("target/classes/OSGI-INF/" + pid + ".xml");
                if (Files.isRegularFile(descriptor)) {
                    return Files.readString(descriptor).contains("configuration-policy=\"require\"");
                }
            }
        }
        throw new AssertionError("no DS descriptor OSGI-INF/" + pid + ".xml in any bundle");
    }
}
