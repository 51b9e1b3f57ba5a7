package org.objrdma.s3.internal.servlet;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Header values as the client sent them. Jetty turns each header byte into one char (ISO-8859-1), so a
 * UTF-8 value ({@code x-amz-meta-*: Größe}) arrives as its bytes spelled as Latin-1 chars. A client signs
 * the UTF-8 text, and SigV4 canonicalizes a value as its UTF-8 bytes: the value is decoded back to what
 * was sent, so the signature compares the client's bytes and the store keeps the client's text. A value
 * whose bytes are not UTF-8 (a client that sent Latin-1) is kept as decoded, which is also what such a
 * client signed.
 */
final class HeaderBytes {

    private HeaderBytes() {
    }

    static String asSent(String value) {
        if (value == null) {
            return null;
        }
        boolean high = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xff) {
                return value; // the container decoded it already: nothing to recover
            }
            high |= c >= 0x80;
        }
        if (!high) {
            return value;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .decode(ByteBuffer.wrap(value.getBytes(StandardCharsets.ISO_8859_1))).toString();
        } catch (CharacterCodingException notUtf8) {
            return value;
        }
    }

    /**
     * A value as Jetty must be handed it to put {@code value}'s text on the wire: Jetty writes each char as
     * one byte, so text beyond Latin-1 (stored from a UTF-8 header) is spelled as its UTF-8 bytes, one char
     * each, and goes out as the bytes the client sent. Latin-1 text is left as it is (one byte a char, as a
     * client such as botocore sent and reads it).
     */
    static String forWire(String value) {
        if (value == null) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) > 0xff) {
                return new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
            }
        }
        return value;
    }
}
