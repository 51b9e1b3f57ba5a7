package org.objrdma.s3.internal.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Header values turned back into what the client sent, from Jetty's one-char-per-byte decoding. */
class HeaderBytesTest {

    /** What Jetty 9.4's HttpParser makes of header bytes: each byte one char. */
    private static String asJettyDecodes(byte[] sent) {
        return new String(sent, StandardCharsets.ISO_8859_1);
    }

    @Test
    void utf8BytesComeBackAsTheirText() {
        for (String text : new String[] {"Größe", "日本語", "emoji \uD83D\uDE00", "Hello World\u00e9"}) {
            assertEquals(text, HeaderBytes.asSent(asJettyDecodes(text.getBytes(StandardCharsets.UTF_8))), text);
        }
    }

    @Test
    void asciiAndLatin1BytesStayAsDecoded() {
        assertEquals("plain ascii", HeaderBytes.asSent("plain ascii"));
        // botocore sends a str header value as Latin-1: 'é' is one byte 0xE9, not UTF-8
        String latin1 = asJettyDecodes("Hello World\u00e9".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("Hello World\u00e9", HeaderBytes.asSent(latin1));
        assertEquals("\u00c3(", HeaderBytes.asSent("\u00c3("), "an invalid UTF-8 sequence is kept");
        assertEquals("日本", HeaderBytes.asSent("日本"), "a container that decoded already: kept");
        assertEquals(null, HeaderBytes.asSent(null));
    }

    @Test
    void textBeyondLatin1GoesOutAsItsUtf8Bytes() {
        String wire = HeaderBytes.forWire("日本語");
        assertEquals("日本語", new String(wire.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
        assertEquals("Hello World\u00e9", HeaderBytes.forWire("Hello World\u00e9"));
        assertEquals("ascii", HeaderBytes.forWire("ascii"));
    }
}
