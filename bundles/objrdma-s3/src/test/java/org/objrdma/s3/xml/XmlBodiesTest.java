package org.objrdma.s3.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.S3Exception;

/** The hardened parser: the two S3 request shapes, and what it refuses. */
class XmlBodiesTest {

    private static ByteArrayInputStream in(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void parsesCompleteMultipartUploadWithChecksums() throws Exception {
        List<XmlBodies.CompletedPart> parts = XmlBodies.completeMultipartUpload(in(
                "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                        + "<Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part>"
                        + "<Part><ETag>b</ETag><PartNumber> 2 </PartNumber></Part></CompleteMultipartUpload>"), 4096, 10);
        assertEquals(2, parts.size());
        assertEquals("\"a\"", parts.get(0).etag());
        assertEquals("AAAAAA==", parts.get(0).checksums().get("ChecksumCRC32"));
        assertEquals(2, parts.get(1).partNumber());
    }

    @Test
    void parsesDeleteWithQuietAndEscapedKeys() throws Exception {
        XmlBodies.DeleteRequest d = XmlBodies.deleteObjects(in(
                "<Delete><Quiet>true</Quiet><Object><Key>a&amp;b&#x9;</Key></Object><Object><Key>c</Key>"
                        + "<VersionId>null</VersionId></Object></Delete>"), 4096, 1000);
        assertTrue(d.quiet());
        assertEquals("a&b\t", d.objects().get(0).key());
        assertEquals("null", d.objects().get(1).versionId());
    }

    private static String code(ThrowingSupplier s) {
        return assertThrows(S3Exception.class, s::get).code();
    }

    interface ThrowingSupplier {
        Object get() throws Exception;
    }

    @Test
    void refusesDtdsEntitiesSizeAndShape() {
        assertEquals("MalformedXML", code(() -> XmlBodies.deleteObjects(in(
                "<!DOCTYPE Delete [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><Delete><Object><Key>&x;</Key></Object></Delete>"),
                4096, 10)));
        assertEquals("MalformedXML", code(() -> XmlBodies.deleteObjects(in(
                "<!DOCTYPE lol [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><Delete><Object><Key>&b;</Key></Object></Delete>"),
                4096, 10)));
        assertEquals("MaxMessageLengthExceeded", code(() -> XmlBodies.deleteObjects(in("<Delete>" + "x".repeat(5000) + "</Delete>"),
                4096, 10)));
        assertEquals("MalformedXML", code(() -> XmlBodies.deleteObjects(in("<Delete><Object><Key>a</Key>"), 4096, 10)));
        assertEquals("MalformedXML", code(() -> XmlBodies.deleteObjects(in("<Delete></Delete>"), 4096, 10)));
        assertEquals("MalformedXML", code(() -> XmlBodies.completeMultipartUpload(in("<Other/>"), 4096, 10)));
        assertEquals("MalformedXML", code(() -> XmlBodies.completeMultipartUpload(in(
                "<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>"),
                4096, 10)));
        assertEquals("InvalidArgument", code(() -> XmlBodies.completeMultipartUpload(in(
                "<CompleteMultipartUpload>" + "<Part><PartNumber>1</PartNumber><ETag>a</ETag></Part>".repeat(3)
                        + "</CompleteMultipartUpload>"), 4096, 2)));
    }

    @Test
    void writerEscapesMarkupAndControlCharacters() {
        String xml = new String(XmlWriter.document("R", true).element("Key", "<a&b>\u0001\"'").toBytes(),
                StandardCharsets.UTF_8);
        assertTrue(xml.contains("<Key>&lt;a&amp;b&gt;&#x1;&quot;&apos;</Key>"), xml);
        assertTrue(xml.contains("xmlns=\"" + XmlWriter.S3_NS + "\""));
    }
}
