package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * A streaming reader of a {@code multipart/form-data} body (RFC 7578): part by part, each part's headers and then
 * its content as a stream that ends at the next boundary. Nothing is read whole: a part's content is handed on
 * as it arrives, holding back only what could be the start of the boundary. Malformed framing is
 * {@code 400 MalformedPOSTRequest}.
 */
final class FormDataReader {

    /** The most bytes the headers of one part may take (they are read into memory). */
    private static final int MAX_PART_HEADER_BYTES = 8 * 1024;
    private static final int BUFFER = 64 * 1024;

    /** One part's headers: the form field's name and, when sent, its file name. */
    record PartHeaders(String name, String filename) {
    }

    private final InputStream in;
    /** {@code \r\n--boundary}: what ends a part's content. */
    private final byte[] delimiter;
    private final byte[] buf;
    private int pos;
    private int limit;
    private boolean eof;
    /** Set when the closing delimiter ({@code --boundary--}) was read. */
    private boolean finished;
    private PartStream current;

    FormDataReader(InputStream in, String boundary) {
        this.in = in;
        this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        this.buf = new byte[Math.max(BUFFER, delimiter.length * 4)];
    }

    /**
     * The boundary parameter of a {@code multipart/form-data} Content-Type, or null when the type is another
     * one. A form type without a usable boundary is 400.
     */
    static String boundary(String contentType) throws S3Exception {
        if (contentType == null) {
            return null;
        }
        String[] params = contentType.split(";");
        if (!params[0].strip().equalsIgnoreCase("multipart/form-data")) {
            return null;
        }
        for (int i = 1; i < params.length; i++) {
            String p = params[i].strip();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).strip().equalsIgnoreCase("boundary")) {
                String b = p.substring(eq + 1).strip();
                if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
                    b = b.substring(1, b.length() - 1);
                }
                // RFC 2046: 1 to 70 characters
                if (!b.isEmpty() && b.length() <= 70 && b.chars().allMatch(c -> c > 0x20 && c < 0x7f || c == ' ')) {
                    return b;
                }
            }
        }
        throw malformed("The multipart/form-data Content-Type has no valid boundary");
    }

    /**
     * The next part's headers, positioned at its content; null after the last part. The previous part's content
     * must have been read to its end ({@link #content()}) or is skipped here.
     */
    PartHeaders next() throws IOException, S3Exception {
        if (current == null) {
            // the preamble: everything before the first "--boundary" (RFC 2046 lets it be there); the first
            // delimiter may lack its CRLF, so one is assumed in front of the body
            current = new PartStream(true);
        }
        current.skipToEnd();
        if (finished) {
            return null;
        }
        PartHeaders headers = readHeaders();
        current = new PartStream(false);
        return headers;
    }

    /** The content of the part {@link #next()} returned, up to its boundary. */
    InputStream content() {
        return current;
    }

    /** Reads a field's content whole, up to {@code max} bytes (more is 400). */
    byte[] contentBytes(int max, String field) throws IOException, S3Exception {
        byte[] out = current.readNBytes(max + 1);
        if (out.length > max) {
            throw new S3Exception(S3ErrorCode.MAX_MESSAGE_LENGTH_EXCEEDED,
                    "The form fields before the file may have at most " + max + " bytes (field '" + field + "')");
        }
        return out;
    }

    private PartHeaders readHeaders() throws IOException, S3Exception {
        String name = null;
        String filename = null;
        int total = 0;
        while (true) {
            String line = readLine(MAX_PART_HEADER_BYTES - total);
            total += line.length() + 2;
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw malformed("A form part header is not 'name: value': '" + line + "'");
            }
            if (line.substring(0, colon).strip().equalsIgnoreCase("Content-Disposition")) {
                Map<String, String> params = dispositionParams(line.substring(colon + 1));
                name = params.get("name");
                filename = params.get("filename");
            }
        }
        if (name == null) {
            throw malformed("A form part has no Content-Disposition name");
        }
        return new PartHeaders(name, filename);
    }

    /** {@code form-data; name="a"; filename="b"} parameters; quoted strings may hold {@code ;} and escaped quotes. */
    static Map<String, String> dispositionParams(String value) throws S3Exception {
        Map<String, String> out = new LinkedHashMap<>();
        int i = value.indexOf(';');
        if (i < 0 || !value.substring(0, i).strip().equalsIgnoreCase("form-data")) {
            throw malformed("A form part's Content-Disposition is not form-data");
        }
        int n = value.length();
        i++;
        while (i < n) {
            while (i < n && (value.charAt(i) == ' ' || value.charAt(i) == '\t' || value.charAt(i) == ';')) {
                i++;
            }
            int eq = value.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String key = value.substring(i, eq).strip().toLowerCase(Locale.ROOT);
            i = eq + 1;
            StringBuilder v = new StringBuilder();
            if (i < n && value.charAt(i) == '"') {
                i++;
                while (i < n && value.charAt(i) != '"') {
                    char c = value.charAt(i++);
                    if (c == '\\' && i < n) {
                        c = value.charAt(i++);
                    }
                    v.append(c);
                }
                if (i >= n) {
                    throw malformed("A form part's Content-Disposition has an unterminated quoted string");
                }
                i++;
            } else {
                while (i < n && value.charAt(i) != ';') {
                    v.append(value.charAt(i++));
                }
            }
            out.putIfAbsent(key, key.equals("name") || key.equals("filename") ? v.toString() : v.toString().strip());
        }
        return out;
    }

    /** A header line (CRLF-terminated; bytes as ISO-8859-1 for the names, UTF-8 for the values' text). */
    private String readLine(int max) throws IOException, S3Exception {
        byte[] line = new byte[Math.max(0, max)];
        int n = 0;
        while (true) {
            int b = readByte();
            if (b < 0) {
                throw malformed("The form body ended inside a part's headers");
            }
            if (b == '\r') {
                if (readByte() != '\n') {
                    throw malformed("A form part header line does not end in CRLF");
                }
                return new String(line, 0, n, StandardCharsets.UTF_8);
            }
            if (n == line.length) {
                throw malformed("A form part's headers exceed " + MAX_PART_HEADER_BYTES + " bytes");
            }
            line[n++] = (byte) b;
        }
    }

    private int readByte() throws IOException {
        if (pos == limit && !fill(1)) {
            return -1;
        }
        return buf[pos++] & 0xff;
    }

    /** Makes at least {@code want} bytes available from {@code pos} if the body has them; false if it does not. */
    private boolean fill(int want) throws IOException {
        if (limit - pos >= want) {
            return true;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        while (limit < want && !eof) {
            int n = in.read(buf, limit, buf.length - limit);
            if (n < 0) {
                eof = true;
            } else {
                limit += n;
            }
        }
        return limit - pos >= want;
    }

    static S3Exception malformed(String message) {
        return new S3Exception(S3ErrorCode.MALFORMED_POST_REQUEST,
                S3ErrorCode.MALFORMED_POST_REQUEST.defaultMessage() + ": " + message);
    }

    /** One part's content: ends where the delimiter starts; consumes the delimiter and the line end after it. */
    private final class PartStream extends InputStream {
        private boolean ended;
        /** The preamble starts right at a delimiter without its leading CRLF. */
        private boolean preamble;

        PartStream(boolean preamble) {
            this.preamble = preamble;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (ended) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            if (preamble) {
                // "--boundary" at the very start is the first delimiter
                byte[] first = Arrays.copyOfRange(delimiter, 2, delimiter.length);
                if (fill(first.length) && startsWith(first, pos)) {
                    pos += first.length;
                    endOfDelimiter();
                    return -1;
                }
                preamble = false;
            }
            fill(delimiter.length);
            int available = limit - pos;
            if (available == 0) {
                throw new S3BodyException(S3ErrorCode.INCOMPLETE_BODY, "The form body ended before its closing boundary");
            }
            if (available < delimiter.length) {
                // fill stops short only at the end of the body, and a part must end with a delimiter
                throw new S3BodyException(S3ErrorCode.INCOMPLETE_BODY, "The form body ended before its closing boundary");
            }
            // only the starts this read could hand on are searched, so small reads do not rescan the buffer
            int at = indexOfDelimiter(Math.min(limit, pos + len + delimiter.length - 1));
            if (at == pos) {
                pos += delimiter.length;
                endOfDelimiter();
                return -1;
            }
            // bytes before a found delimiter, or all but the tail that could still become one
            int n = at >= 0 ? at - pos : Math.min(len, available - (delimiter.length - 1));
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        void skipToEnd() throws IOException {
            byte[] sink = new byte[8192];
            while (read(sink, 0, sink.length) >= 0) {
                // discarded
            }
        }

        private int indexOfDelimiter(int end) {
            for (int i = pos; i + delimiter.length <= end; i++) {
                if (startsWith(delimiter, i)) {
                    return i;
                }
            }
            return -1;
        }

        private boolean startsWith(byte[] what, int at) {
            for (int j = 0; j < what.length; j++) {
                if (buf[at + j] != what[j]) {
                    return false;
                }
            }
            return true;
        }

        /** After {@code --boundary}: {@code --} closes the body, else optional whitespace and CRLF start a part. */
        private void endOfDelimiter() throws IOException {
            ended = true;
            if (fill(2) && buf[pos] == '-' && buf[pos + 1] == '-') {
                pos += 2;
                finished = true;
                return;
            }
            while (true) {
                int c = readByte();
                if (c == '\r' && readByte() == '\n') {
                    return;
                }
                if (c != ' ' && c != '\t') {
                    throw new S3BodyException(S3ErrorCode.INCOMPLETE_BODY,
                            "A form boundary is not followed by CRLF or '--'");
                }
            }
        }
    }
}
