package org.objrdma.s3.xml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.auth.DigestCheckingInputStream;

/**
 * The running limits of the streaming XML parser: each is refused with its S3 error while the body streams,
 * and the largest bodies S3 allows (1000 keys of 1024 characters, 10000 parts with a checksum) fit the
 * default byte limit.
 */
class XmlBodiesLimitsTest {

    private static final int LIMIT = S3Settings.DEFAULTS.maxXmlBodyBytes();
    private static final int KEYS = 1000;
    private static final int PARTS = 10_000;

    private static InputStream in(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    private static S3Exception refusal(Parse p) {
        return assertThrows(S3Exception.class, p::run);
    }

    interface Parse {
        void run() throws Exception;
    }

    private static String object(String key) {
        return "<Object><Key>" + key + "</Key></Object>";
    }

    @Test
    void aBodyPastTheByteLimitIsMaxMessageLengthExceededWhileItStreams() {
        // no declared length: the limit applies as the bytes arrive, long before the body ends
        GeneratedBody endless = new GeneratedBody("<Delete>", object("k"), 100_000_000L, "</Delete>");
        S3Exception e = refusal(() -> XmlBodies.deleteObjects(endless, 4096, KEYS));
        assertEquals("MaxMessageLengthExceeded", e.code());
        assertEquals(400, e.status());
    }

    @Test
    void theLargestBodiesS3AllowsFitTheDefaultLimit() throws Exception {
        // 1000 keys of 1024 two-byte characters: the most a DeleteObjects body needs
        String key = "\u00e9".repeat(1024);
        GeneratedBody delete = new GeneratedBody("<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
                object(key), KEYS, "</Delete>");
        assertTrue(delete.length() <= LIMIT, delete.length() + " bytes");
        XmlBodies.DeleteRequest d = XmlBodies.deleteObjects(delete, LIMIT, KEYS);
        assertEquals(KEYS, d.objects().size());
        assertEquals(key, d.objects().get(KEYS - 1).key());

        // 10000 parts as the AWS SDK writes them, with a SHA-256 checksum each, indented
        String part = "\n  <Part>\n    <ChecksumSHA256>" + "A".repeat(43) + "=</ChecksumSHA256>\n    <ETag>&quot;"
                + "0123456789abcdef".repeat(2) + "&quot;</ETag>\n    <PartNumber>10000</PartNumber>\n  </Part>";
        GeneratedBody complete = new GeneratedBody("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">", part, PARTS,
                "\n</CompleteMultipartUpload>\n");
        assertTrue(complete.length() <= LIMIT, complete.length() + " bytes");
        List<XmlBodies.CompletedPart> parts = XmlBodies.completeMultipartUpload(complete, LIMIT, PARTS);
        assertEquals(PARTS, parts.size());
        assertEquals("\"0123456789abcdef0123456789abcdef\"", parts.get(0).etag());
        assertEquals("A".repeat(43) + "=", parts.get(0).checksums().get("ChecksumSHA256"));
    }

    @Test
    void keysAndPartsAreCountedAsTheyArrive() {
        GeneratedBody keys = new GeneratedBody("<Delete>", object("k"), KEYS + 1, "</Delete>");
        S3Exception e = refusal(() -> XmlBodies.deleteObjects(keys, LIMIT, KEYS));
        assertEquals("MalformedXML", e.code());
        assertTrue(e.getMessage().contains("at most 1000 keys"), e.getMessage());

        GeneratedBody parts = new GeneratedBody("<CompleteMultipartUpload>",
                "<Part><PartNumber>1</PartNumber><ETag>a</ETag></Part>", PARTS + 1, "</CompleteMultipartUpload>");
        assertEquals("InvalidArgument", refusal(() -> XmlBodies.completeMultipartUpload(parts, LIMIT, PARTS)).code());
    }

    @Test
    void elementsAreCountedEvenWhereTheyAreIgnored() {
        // the old parser's worst case: megabytes of empty elements, here inside one Object where unknown
        // elements are passed over; refused once their count exceeds what 1000 keys can need
        GeneratedBody empties = GeneratedBody.filling("<Delete><Object><Key>k</Key>", "<a/>", "</Object></Delete>",
                LIMIT);
        S3Exception e = refusal(() -> XmlBodies.deleteObjects(empties, LIMIT, KEYS));
        assertEquals("MalformedXML", e.code());
        assertTrue(e.getMessage().contains("more than 10002 elements"), e.getMessage());
    }

    @Test
    void nestingDeeperThanSixIsRefused() throws Exception {
        String five = "<a><b><c><d>x</d></c></b></a>";
        XmlBodies.deleteObjects(in("<Delete><Object><Key>k</Key>" + five + "</Object></Delete>"), LIMIT, KEYS);
        String six = "<a><b><c><d><e>x</e></d></c></b></a>";
        S3Exception e = refusal(() -> XmlBodies.deleteObjects(
                in("<Delete><Object><Key>k</Key>" + six + "</Object></Delete>"), LIMIT, KEYS));
        assertEquals("MalformedXML", e.code());
    }

    @Test
    void aKeyOfMoreThan1024CharactersIsKeyTooLong() throws Exception {
        XmlBodies.deleteObjects(in("<Delete>" + object("k".repeat(1024)) + "</Delete>"), LIMIT, KEYS);
        S3Exception e = refusal(() -> XmlBodies.deleteObjects(in("<Delete>" + object("k".repeat(1025)) + "</Delete>"),
                LIMIT, KEYS));
        assertEquals("KeyTooLongError", e.code());
        assertEquals(400, e.status());
        // other texts are bounded too
        assertEquals("MalformedXML", refusal(() -> XmlBodies.completeMultipartUpload(in("<CompleteMultipartUpload><Part>"
                + "<PartNumber>1</PartNumber><ETag>" + "e".repeat(257) + "</ETag></Part></CompleteMultipartUpload>"),
                LIMIT, PARTS)).code());
    }

    @Test
    void constructsTheReaderBuffersWholeAreBounded() throws Exception {
        // a CDATA key and a comment of ordinary size are fine
        XmlBodies.DeleteRequest d = XmlBodies.deleteObjects(in("<!-- a comment --><Delete><Object><Key><![CDATA[a<b]]>"
                + "</Key></Object></Delete>"), LIMIT, KEYS);
        assertEquals("a<b", d.objects().get(0).key());
        String big = "x".repeat(BoundedXmlReader.MAX_MARKUP_CHARS);
        for (String body : List.of("<Delete><!--" + big + "--></Delete>", "<Delete><![CDATA[" + big + "]]></Delete>",
                "<Delete a=\"" + big + "\"></Delete>", "<Delete><?pi " + big + "?></Delete>",
                "<Delete><!-->" + big + "--></Delete>")) {
            S3Exception e = refusal(() -> XmlBodies.deleteObjects(in(body), LIMIT, KEYS));
            assertEquals("MalformedXML", e.code(), body.substring(0, 20));
            assertTrue(e.getMessage().contains("longer than 4096 characters"), e.getMessage());
        }
        S3Exception doctype = refusal(() -> XmlBodies.deleteObjects(in("<!DOCTYPE Delete><Delete/>"), LIMIT, KEYS));
        assertTrue(doctype.getMessage().contains("DTDs and declarations are not allowed"), doctype.getMessage());
    }

    @Test
    void theBodyIsReadToItsEndSoItsChecksRunBeforeAnythingIsReturned() throws Exception {
        byte[] body = ("<Delete>" + object("k") + "</Delete>\n\n").getBytes(StandardCharsets.UTF_8);
        byte[] wrong = MessageDigest.getInstance("SHA-256").digest("other".getBytes(StandardCharsets.UTF_8));
        InputStream checked = new DigestCheckingInputStream(new ByteArrayInputStream(body),
                MessageDigest.getInstance("SHA-256"), wrong, S3ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH, "mismatch");
        assertEquals("XAmzContentSHA256Mismatch", refusal(() -> XmlBodies.deleteObjects(checked, LIMIT, KEYS)).code());

        byte[] right = MessageDigest.getInstance("SHA-256").digest(body);
        InputStream good = new DigestCheckingInputStream(new ByteArrayInputStream(body),
                MessageDigest.getInstance("SHA-256"), right, S3ErrorCode.X_AMZ_CONTENT_SHA256_MISMATCH, "mismatch");
        assertEquals("k", XmlBodies.deleteObjects(good, LIMIT, KEYS).objects().get(0).key());
        assertEquals(-1, good.read());
    }

    @Test
    void aBodyThatIsNotUtf8IsMalformed() {
        byte[] latin1 = "<Delete><Object><Key>\u00e9</Key></Object></Delete>".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("MalformedXML", refusal(() -> XmlBodies.deleteObjects(new ByteArrayInputStream(latin1), LIMIT,
                KEYS)).code());
    }
}
