package org.objrdma.s3.xml;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes the small XML documents S3 answers with. Hand-written rather than StAX because the documents are
 * flat, and escaping must cover what StAX leaves alone (control characters in keys are written as character
 * references, as S3 does, so any key round-trips).
 */
public final class XmlWriter {

    public static final String S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/";

    private final StringBuilder sb = new StringBuilder(512).append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    private final Deque<String> open = new ArrayDeque<>();

    /** Opens the root element, in the S3 namespace when {@code namespaced}. */
    public static XmlWriter document(String root, boolean namespaced) {
        XmlWriter w = new XmlWriter();
        w.sb.append('<').append(root);
        if (namespaced) {
            w.sb.append(" xmlns=\"").append(S3_NS).append('"');
        }
        w.sb.append('>');
        w.open.push(root);
        return w;
    }

    public XmlWriter start(String name) {
        sb.append('<').append(name).append('>');
        open.push(name);
        return this;
    }

    /**
     * {@code <name a1="v1" a2="v2">}: {@code attributes} are name/value pairs, the names the caller's constants
     * (e.g. {@code xmlns:xsi}, {@code xsi:type}), the values escaped.
     *
     * @since 1.1
     */
    public XmlWriter start(String name, String... attributes) {
        if (attributes.length % 2 != 0) {
            throw new IllegalArgumentException("attributes are name/value pairs");
        }
        sb.append('<').append(name);
        for (int i = 0; i < attributes.length; i += 2) {
            sb.append(' ').append(attributes[i]).append("=\"");
            escape(attributes[i + 1]);
            sb.append('"');
        }
        sb.append('>');
        open.push(name);
        return this;
    }

    public XmlWriter end() {
        sb.append("</").append(open.pop()).append('>');
        return this;
    }

    /** {@code <name>text</name>}; nothing if {@code text} is null. */
    public XmlWriter element(String name, Object text) {
        if (text != null) {
            sb.append('<').append(name).append('>');
            escape(String.valueOf(text));
            sb.append("</").append(name).append('>');
        }
        return this;
    }

    /** Text inside the innermost open element. */
    public XmlWriter text(String text) {
        escape(text);
        return this;
    }

    private void escape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append("&#x").append(Integer.toHexString(c)).append(';');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
    }

    /** Closes every open element and returns the document. */
    public byte[] toBytes() {
        while (!open.isEmpty()) {
            end();
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
