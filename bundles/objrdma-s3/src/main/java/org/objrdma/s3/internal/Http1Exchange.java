package org.objrdma.s3.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 request and its answer over a fresh connection, headers written exactly as given. Hand-written
 * because a forwarded request must keep the client's {@code Host} (the SigV4 signature covers it) and the JDK's
 * {@code HttpClient} refuses to set {@code Host} without a JVM-wide flag. Deliberately small: a request with a
 * {@code Content-Length} body, {@code Connection: close}; an answer with a {@code Content-Length}, chunked or
 * read-to-close body, bounded in size; interim {@code 1xx} answers skipped. {@code https} uses the JVM's default
 * trust store and checks the host name.
 */
final class Http1Exchange implements AutoCloseable {

    /** One header as received. */
    record Header(String name, String value) {
    }

    /** The final answer. */
    record Answer(int status, List<Header> headers, byte[] body) {
        String header(String name) {
            for (Header h : headers) {
                if (h.name().equalsIgnoreCase(name)) {
                    return h.value();
                }
            }
            return null;
        }
    }

    private static final int MAX_LINE = 16 << 10;
    private static final int MAX_HEADERS = 200;

    private final Socket socket;

    private Http1Exchange(Socket socket) {
        this.socket = socket;
    }

    /** Connects to {@code endpoint} ({@code http} or {@code https}, host, optional port). */
    static Http1Exchange connect(URI endpoint, Duration connectTimeout, Duration readTimeout) throws IOException {
        boolean tls = "https".equalsIgnoreCase(endpoint.getScheme());
        int port = endpoint.getPort() >= 0 ? endpoint.getPort() : tls ? 443 : 80;
        String host = endpoint.getHost();
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            plain.setSoTimeout((int) Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
            plain.setTcpNoDelay(true);
            if (!tls) {
                return new Http1Exchange(plain);
            }
            SSLSocket s = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault())
                    .createSocket(plain, host, port, true);
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            boolean ipLiteral = host.startsWith("[") || host.contains(":") || host.matches("[0-9.]+");
            if (!ipLiteral) { // SNI takes names only
                p.setServerNames(List.of(new SNIHostName(host)));
            }
            s.setSSLParameters(p);
            s.startHandshake();
            return new Http1Exchange(s);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /** The local address of the connection (what the peer sees as this side). */
    String localAddress() {
        return socket.getLocalAddress().getHostAddress();
    }

    /**
     * Sends {@code method target HTTP/1.1}, the headers verbatim, {@code Content-Length}, {@code Connection:
     * close} and the body; returns the final answer, its body at most {@code maxBody} bytes.
     *
     * @throws java.net.SocketTimeoutException when a read waits longer than the read timeout
     * @throws ProtocolException               when the answer is not HTTP/1.x or is too large
     */
    Answer exchange(String method, String target, List<Header> headers, byte[] body, int maxBody) throws IOException {
        OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 8192);
        StringBuilder head = new StringBuilder(1024).append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        for (Header h : headers) {
            head.append(h.name()).append(": ").append(h.value()).append("\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
        while (true) {
            int status = statusLine(readLine(in));
            List<Header> answerHeaders = readHeaders(in);
            if (status >= 100 && status < 200) {
                continue; // 100 Continue and friends: the final answer follows
            }
            boolean none = method.equals("HEAD") || status == 204 || status == 304;
            byte[] answerBody = none ? new byte[0] : readBody(in, answerHeaders, maxBody);
            return new Answer(status, List.copyOf(answerHeaders), answerBody);
        }
    }

    private static int statusLine(String line) throws ProtocolException {
        // HTTP/1.1 200 OK
        if (!line.startsWith("HTTP/1.") || line.length() < 12 || line.charAt(8) != ' ') {
            throw new ProtocolException("not an HTTP/1.x status line: " + abbreviate(line));
        }
        try {
            int status = Integer.parseInt(line.substring(9, 12));
            if (status < 100 || status > 599) {
                throw new NumberFormatException();
            }
            return status;
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad status in " + abbreviate(line));
        }
    }

    private static List<Header> readHeaders(InputStream in) throws IOException {
        List<Header> out = new ArrayList<>();
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            if (colon <= 0 || out.size() == MAX_HEADERS) {
                throw new ProtocolException("bad or too many header lines: " + abbreviate(line));
            }
            out.add(new Header(line.substring(0, colon).strip(), line.substring(colon + 1).strip()));
        }
        return out;
    }

    private static byte[] readBody(InputStream in, List<Header> headers, int maxBody) throws IOException {
        String te = null;
        String length = null;
        for (Header h : headers) {
            if (h.name().equalsIgnoreCase("Transfer-Encoding")) {
                te = h.value().toLowerCase(Locale.ROOT);
            } else if (h.name().equalsIgnoreCase("Content-Length")) {
                length = h.value();
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (te != null && te.endsWith("chunked")) {
            while (true) {
                String sizeLine = readLine(in);
                int semi = sizeLine.indexOf(';');
                long size = hex(semi < 0 ? sizeLine : sizeLine.substring(0, semi));
                if (size == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers: nothing the relay needs
                    }
                    return body.toByteArray();
                }
                copy(in, body, size, maxBody);
                if (!readLine(in).isEmpty()) {
                    throw new ProtocolException("chunk not followed by CRLF");
                }
            }
        }
        if (length != null) {
            long n;
            try {
                n = Long.parseLong(length.strip());
            } catch (NumberFormatException e) {
                throw new ProtocolException("bad Content-Length " + abbreviate(length));
            }
            if (n < 0) {
                throw new ProtocolException("negative Content-Length");
            }
            copy(in, body, n, maxBody);
            return body.toByteArray();
        }
        copy(in, body, Long.MAX_VALUE, maxBody); // no length: the body ends with the connection
        return body.toByteArray();
    }

    private static long hex(String s) throws ProtocolException {
        try {
            long v = Long.parseLong(s.strip(), 16);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad chunk size " + abbreviate(s));
        }
    }

    /** Copies {@code n} bytes (or to end of stream when {@code n} is Long.MAX_VALUE), the total bounded. */
    private static void copy(InputStream in, ByteArrayOutputStream to, long n, int maxBody) throws IOException {
        byte[] buf = new byte[8192];
        long left = n;
        while (left > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (r < 0) {
                if (n == Long.MAX_VALUE) {
                    return;
                }
                throw new ProtocolException("answer body ended early");
            }
            if (to.size() + r > maxBody) {
                throw new ProtocolException("answer body above " + maxBody + " bytes");
            }
            to.write(buf, 0, r);
            left -= r;
        }
    }

    /** A line up to CRLF (or a bare LF), without it, as ISO-8859-1. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new ProtocolException("connection closed inside the answer's head");
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            if (line.size() == MAX_LINE) {
                throw new ProtocolException("answer line above " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
