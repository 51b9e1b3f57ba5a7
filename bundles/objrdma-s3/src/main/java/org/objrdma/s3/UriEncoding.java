package org.objrdma.s3;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding of raw URIs and AWS's {@code UriEncode}: every byte except {@code A-Z a-z 0-9 - . _ ~}
 * becomes {@code %XY} (upper-case hex), {@code /} optionally kept. A {@code +} is a literal plus, never a
 * space: S3 clients encode spaces as {@code %20}.
 */
public final class UriEncoding {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private UriEncoding() {
    }

    /** Decodes {@code %XY} sequences as UTF-8; a malformed escape or invalid UTF-8 is an error. */
    public static String decode(String raw) throws S3Exception {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    throw malformed(raw);
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw malformed(raw);
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                out.write(c);
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && i + 1 < raw.length()) {
                    b = raw.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                out.writeBytes(b);
            }
        }
        byte[] bytes = out.toByteArray();
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The URI holds a percent-encoding that is not UTF-8");
        }
    }

    /**
     * As {@link #decode}, for the bucket and key of the request path: what does not decode to UTF-8 is
     * S3's 400 InvalidURI (the request names no key at all, so it is not a 404).
     *
     * @since 1.2
     */
    public static String decodePath(String raw) throws S3Exception {
        try {
            return decode(raw);
        } catch (S3Exception e) {
            throw new S3Exception(S3ErrorCode.INVALID_URI, e.getMessage());
        }
    }

    private static S3Exception malformed(String raw) {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Malformed percent-encoding in the request URI");
    }

    /** AWS {@code UriEncode} of {@code s}'s UTF-8 bytes; {@code /} is kept when {@code keepSlash}. */
    public static String encode(String s, boolean keepSlash) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                    || c == '-' || c == '.' || c == '_' || c == '~' || keepSlash && c == '/') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return sb.toString();
    }
}
