package org.objrdma.s3.internal;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON (RFC 8259) of a POST policy document, read into plain values: {@link Map} (members in order, a repeated
 * name is an error), {@link List}, {@link String}, {@link BigDecimal}, {@link Boolean} and {@link #NULL}. Strict:
 * anything else, trailing text or nesting deeper than {@link #MAX_DEPTH} is an {@link IllegalArgumentException}
 * whose message says where. The input is already bounded by the form's size limit.
 */
final class PolicyJson {

    /** JSON {@code null} (a Map or List cannot hold Java null here). */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };
    static final int MAX_DEPTH = 32;

    private final String text;
    private int pos;

    private PolicyJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        PolicyJson p = new PolicyJson(text);
        Object v = p.value(0);
        p.space();
        if (p.pos != text.length()) {
            throw p.error("text after the JSON value");
        }
        return v;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        space();
        if (pos >= text.length()) {
            throw error("a value was expected");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", NULL);
            default -> number();
        };
    }

    private Map<String, Object> object(int depth) {
        pos++;
        Map<String, Object> out = new LinkedHashMap<>();
        space();
        if (peek('}')) {
            pos++;
            return out;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("a member name was expected");
            }
            String name = string();
            space();
            expect(':');
            if (out.put(name, value(depth + 1)) != null) {
                throw error("the member \"" + name + "\" is repeated");
            }
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return out;
            }
        }
    }

    private List<Object> array(int depth) {
        pos++;
        List<Object> out = new ArrayList<>();
        space();
        if (peek(']')) {
            pos++;
            return out;
        }
        while (true) {
            out.add(value(depth + 1));
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return out;
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("an unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("a control character inside a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("an unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("a short \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("a malformed \\u escape");
                    }
                    pos += 4;
                }
                default -> throw error("an unknown escape \\" + e);
            }
        }
    }

    private BigDecimal number() {
        int start = pos;
        if (peek('-')) {
            pos++;
        }
        while (pos < text.length() && "0123456789.eE+-".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String n = text.substring(start, pos);
        // JSON's grammar, not Java's: no leading '+', '.', or superfluous zeros
        if (!n.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            pos = start;
            throw error("a value was expected");
        }
        return new BigDecimal(n);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("a value was expected");
        }
        pos += word.length();
        return value;
    }

    private void space() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "' was expected");
        }
        pos++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at character " + pos);
    }
}
