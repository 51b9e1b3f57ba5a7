package org.objrdma.s3.xml;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.objrdma.s3.S3Exception;

/**
 * Fuzz targets (Jazzer) for the two S3 XML request bodies the gateway parses: CompleteMultipartUpload and
 * DeleteObjects, with the gateway's limits. Properties: a refusal is an {@link S3Exception} with an S3 code and
 * status 400, never another exception (a StAX error, a stack overflow, an out-of-memory); an accepted body honours
 * the limits and the shape its method documents; no entity is ever expanded — the seeds declare internal and
 * external entities (this host's {@code /etc/passwd}, {@code /etc/hostname}), and no parsed value holds their text.
 */
class XmlBodiesFuzzTest {
    private static final int MAX_BYTES = 64 * 1024;
    private static final int MAX_PARTS = 10_000;
    private static final int MAX_KEYS = 1000;
    /** What an expanded seed entity would put into a value. */
    private static final String[] EXPANSIONS = {"root:x:", "ENTITY-EXPANDED"};

    /**
     * Findings whose fix belongs to code this suite does not own, kept under
     * {@code XmlBodiesFuzzTestKnownFindings/<target>/} with the diagnosis in its {@code README.md}: each is replayed;
     * while it still fails it is reported as skipped with that diagnosis (so the build stays green and the finding
     * stays visible); once it passes, this fails and asks for the input to move to
     * {@code XmlBodiesFuzzTestInputs/<target>/}, where it stays as a regression input.
     */
    @TestFactory
    Stream<DynamicTest> knownFindings() throws Exception {
        URL dir = XmlBodiesFuzzTest.class.getResource("XmlBodiesFuzzTestKnownFindings");
        if (dir == null) {
            return Stream.empty();
        }
        Path findings = Path.of(dir.toURI());
        String diagnosis = Files.readAllLines(findings.resolve("README.md")).get(0);
        Map<String, Consumer<byte[]>> targets = Map.of("completeMultipartUpload", this::completeMultipartUpload,
                "deleteObjects", this::deleteObjects);
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, Consumer<byte[]>> target : targets.entrySet()) {
            Path inputs = findings.resolve(target.getKey());
            if (!Files.isDirectory(inputs)) {
                continue;
            }
            try (Stream<Path> files = Files.list(inputs)) {
                for (Path input : files.sorted().toList()) {
                    String name = target.getKey() + "/" + input.getFileName();
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        try {
                            target.getValue().accept(Files.readAllBytes(input));
                        } catch (Throwable stillFails) {
                            Assumptions.abort("known finding " + name + ", fix pending in objrdma-s3 main (see"
                                    + " XmlBodiesFuzzTestKnownFindings/README.md): " + diagnosis
                                    + " Now: " + stillFails);
                        }
                        Assertions.fail("the known finding " + name + " passes now: move it to XmlBodiesFuzzTestInputs/"
                                + target.getKey() + "/ as a regression input");
                    }));
                }
            }
        }
        return tests.stream();
    }

    private static void assertRefusal(S3Exception e) {
        assertFalse(e.code() == null || e.code().isEmpty(), "an S3Exception without a code: " + e);
        assertTrue(e.status() == 400, "an XML body refusal with status " + e.status() + ": " + e);
    }

    /**
     * A marker in an accepted value means expansion only if the body really declares a DTD: a body may carry
     * the marker as literal text (the fuzzer copies it out of the seeds), also next to the string
     * {@code <!DOCTYPE} inside a processing instruction, a comment or CDATA, which declares nothing. Guessing that
     * from the bytes failed three times in the first bounded CI runs (inputs kept as
     * {@code doctype-text-in-a-processing-instruction*}), so a reference reader decides: the JDK's StAX with DTDs
     * reported (not loaded, not expanded).
     */
    private static void assertNotExpanded(String value, byte[] input) {
        if (value == null) {
            return;
        }
        for (String x : EXPANSIONS) {
            if (value.contains(x)) {
                assertFalse(declaresDtd(input), "an entity was expanded into " + value);
            }
        }
    }

    /** Whether a reader that reports DTDs and entity references meets one in {@code input}. */
    private static boolean declaresDtd(byte[] input) {
        String latin1 = new String(input, java.nio.charset.StandardCharsets.ISO_8859_1);
        boolean asciiCompatible = latin1.indexOf('\0') < 0 && !latin1.startsWith("\u00fe\u00ff")
                && !latin1.startsWith("\u00ff\u00fe") && !latin1.startsWith("Lo\u00a7\u0094"); // not UTF-16 / EBCDIC
        if (asciiCompatible && !latin1.contains("<!DOCTYPE") && !latin1.contains("<!ENTITY")) {
            return false; // nothing to declare with: spare the reference reader (and its stderr)
        }
        javax.xml.stream.XMLInputFactory f = javax.xml.stream.XMLInputFactory.newFactory();
        f.setProperty(javax.xml.stream.XMLInputFactory.SUPPORT_DTD, true);
        f.setProperty(javax.xml.stream.XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(javax.xml.stream.XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        try {
            f.setProperty("http://java.sun.com/xml/stream/properties/ignore-external-dtd", true);
        } catch (IllegalArgumentException notThisImplementation) {
            // then an external DTD subset fails the read below with a message naming it
        }
        try {
            javax.xml.stream.XMLStreamReader r = f.createXMLStreamReader(new ByteArrayInputStream(input));
            while (r.hasNext()) {
                int event = r.next();
                if (event == javax.xml.stream.XMLStreamConstants.DTD
                        || event == javax.xml.stream.XMLStreamConstants.ENTITY_REFERENCE) {
                    return true;
                }
            }
            return false;
        } catch (javax.xml.stream.XMLStreamException | RuntimeException e) {
            return String.valueOf(e.getMessage()).contains("DTD");
        }
    }

    @FuzzTest
    @DictionaryEntries({"<CompleteMultipartUpload>", "</CompleteMultipartUpload>", "<Part>", "</Part>",
            "<PartNumber>", "</PartNumber>", "<ETag>", "</ETag>", "<ChecksumCRC32>", "<?xml version='1.0'?>",
            "<!DOCTYPE", "<!ENTITY", "&amp;", "&quot;", "<![CDATA[", "]]>",
            "xmlns='http://s3.amazonaws.com/doc/2006-03-01/'"})
    void completeMultipartUpload(byte[] input) {
        try {
            var parts = XmlBodies.completeMultipartUpload(new ByteArrayInputStream(input), MAX_BYTES, MAX_PARTS);
            assertFalse(parts.isEmpty(), "an accepted CompleteMultipartUpload without parts");
            assertTrue(parts.size() <= MAX_PARTS, parts.size() + " parts accepted, limit " + MAX_PARTS);
            assertTrue(input.length <= MAX_BYTES, "a body over the byte limit was accepted");
            for (XmlBodies.CompletedPart p : parts) {
                assertNotNull(p.etag(), "a part without an ETag");
                assertNotExpanded(p.etag(), input);
                p.checksums().values().forEach(v -> assertNotExpanded(v, input));
            }
        } catch (S3Exception e) {
            assertRefusal(e);
        }
    }

    @FuzzTest
    @DictionaryEntries({"<Delete>", "</Delete>", "<Object>", "</Object>", "<Key>", "</Key>", "<VersionId>",
            "<Quiet>true</Quiet>", "<?xml version='1.0'?>", "<!DOCTYPE", "<!ENTITY", "&amp;", "&#x0;", "<![CDATA["})
    void deleteObjects(byte[] input) {
        try {
            XmlBodies.DeleteRequest d = XmlBodies.deleteObjects(new ByteArrayInputStream(input), MAX_BYTES, MAX_KEYS);
            assertFalse(d.objects().isEmpty(), "an accepted Delete without objects");
            assertTrue(d.objects().size() <= MAX_KEYS, d.objects().size() + " keys accepted, limit " + MAX_KEYS);
            assertTrue(input.length <= MAX_BYTES, "a body over the byte limit was accepted");
            for (XmlBodies.ObjectToDelete o : d.objects()) {
                assertFalse(o.key() == null || o.key().isEmpty(), "an object without a key");
                assertNotExpanded(o.key(), input);
                assertNotExpanded(o.versionId(), input);
            }
        } catch (S3Exception e) {
            assertRefusal(e);
        }
    }
}
