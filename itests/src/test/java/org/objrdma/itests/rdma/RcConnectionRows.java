package org.objrdma.itests.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Transport;
import org.objrdma.itests.rdma.SignedHttp.Credential;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.TokenResult;

/**
 * A cuObject-over-RC client written from the protocol's facts (issue 26 §1), as elbencho's client library behaves:
 * per connection one queue pair of its own on the software device's cross-process fabric; {@code POST
 * /.s3rdma-rc/connect} unsigned and body-less with its queue pair as a hipObject token and its PSN, then it connects
 * its queue pair to the server's from the answer; object requests signed, with {@code rc:<session>:<addr>:<size>:<rkey>}
 * naming a whole-region registration of its memory (as ibv_reg_mr with remote access gives it); {@code POST
 * /.s3rdma-rc/disconnect} unsigned. Each answer is judged as the client {@code --style} would
 * ({@code objrdma}, {@code minio}, {@code cloudian}; see {@link #verdictGet} and {@link #verdictPut}).
 *
 * <p>The unsigned routes go over a raw socket, so that {@code --from=127.0.0.N} can pick the source address (the
 * per-source bound).
 */
final class RcConnectionRows {

    /** One connection: our queue pair and the server's id for it. */
    private record Conn(Channel channel, String session) {
    }

    private final Transport transport;
    private final String host;
    private final int port;
    private final Map<String, Conn> conns = new HashMap<>();

    RcConnectionRows(Transport transport, String host, int port) {
        this.transport = transport;
        this.host = host;
        this.port = port;
    }

    /**
     * {@code connect NAME [--from=IP] [--psn=HEX] [--token=HEX88] [--transport=N]}: answers {@code OK status=200
     * session=..} with our queue pair connected, or {@code FAIL status=..} with our queue pair closed.
     */
    String connect(String name, Map<String, String> opt) throws Exception {
        Channel ch = transport.openChannel(ChannelOptions.DEFAULT);
        boolean kept = false;
        try {
            EndpointInfo.Verbs us = (EndpointInfo.Verbs) ch.localEndpoint();
            RcToken ours = RcToken.forVerbs(us, null);
            if (opt.containsKey("transport")) {
                ours = new RcToken(Integer.parseInt(opt.get("transport")), ours.qpNum(), ours.gid(), 0, 0, 0,
                        ours.portNum(), ours.lid());
            }
            String token = opt.getOrDefault("token", ours.format());
            String psn = opt.getOrDefault("psn", String.format("%06x", us.psn()));
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("x-amz-rdma-token", token);
            headers.put("x-amz-rdma-psn", psn);
            Raw r = unsigned(opt.getOrDefault("from", host), "/.s3rdma-rc/connect", headers);
            if (r.status != 200) {
                return "FAIL status=" + r.status + (r.code() == null ? "" : " code=" + r.code());
            }
            String reply = r.headers.getOrDefault("x-amz-rdma-reply", "");
            String session = r.headers.getOrDefault("x-amz-rdma-session", "");
            if (!reply.startsWith("200:") || !session.matches("[0-9a-fA-F]{32}")) {
                return "FAIL status=200 malformed=" + reply;
            }
            TokenResult<RcToken> server = RcToken.parse(reply.substring(4));
            int serverPsn = Integer.parseInt(r.headers.getOrDefault("x-amz-rdma-psn", "x"), 16);
            ch.connect(server.value().verbsEndpoint(serverPsn, Mtu.MTU_4096).value());
            conns.put(name, new Conn(ch, session));
            kept = true;
            return "OK status=200 session=" + session + " serverqpn=" + server.value().qpNum() + " serverpsn="
                    + String.format("%06x", serverPsn) + " transport=" + server.value().transport();
        } finally {
            if (!kept) {
                ch.close();
            }
        }
    }

    /** {@code disconnect NAME [--session=HEX]}: the server's answer; our queue pair closes. */
    String disconnect(String name, Map<String, String> opt) throws Exception {
        Conn c = conns.remove(name);
        String session = opt.getOrDefault("session", c == null ? "" : c.session);
        try {
            Raw r = unsigned(opt.getOrDefault("from", host), "/.s3rdma-rc/disconnect",
                    Map.of("x-amz-rdma-session", session));
            return (r.status == 204 ? "OK" : "FAIL") + " status=" + r.status + (r.code() == null ? "" : " code=" + r.code());
        } finally {
            if (c != null) {
                c.channel.close();
            }
        }
    }

    /** {@code forget NAME}: closes our queue pair without telling the server (a client that went away). */
    String forget(String name) {
        Conn c = conns.remove(name);
        if (c != null) {
            c.channel.close();
        }
        return "OK";
    }

    /** The session id of connection {@code name}. */
    String session(String name) {
        Conn c = conns.get(name);
        if (c == null) {
            throw new IllegalArgumentException("no connection " + name);
        }
        return c.session;
    }

    /**
     * {@code get NAME PATH SIZE [--range=A-B] [--style=S] [--as=CRED] [--session=HEX]}: a GET into {@code SIZE} bytes
     * of registered memory. Prints the answer, the memory's CRC, the body's CRC and the style's verdict.
     */
    String get(SignedHttp http, Credential who, String name, String path, int size, Map<String, String> opt)
            throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            try (MemoryRegion region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ))) {
                Map<String, String> headers = new HashMap<>();
                headers.put("x-amz-rdma-token", token(opt.getOrDefault("session", sessionOrBlank(name)), region, size));
                if (opt.containsKey("range")) {
                    headers.put("Range", "bytes=" + opt.get("range"));
                }
                HttpResponse<byte[]> r = http.send(who, "GET", path, "", null, headers, Map.of());
                String style = opt.getOrDefault("style", "objrdma");
                return line(r) + " memcrc=" + RdmaClientMain.crc(memory, size) + " length=" + r.body().length
                        + " bodycrc=" + RdmaClientMain.crc(MemorySegment.ofArray(r.body()), r.body().length)
                        + " verdict=" + verdictGet(style, r) + " verdicts=" + verdicts(r, true);
            }
        }
    }

    /**
     * {@code put NAME PATH QUERY SIZE SEED [--style=S] [--as=CRED]}: a PUT (or UploadPart with QUERY) from registered
     * memory holding {@code random(SEED)}. When the style's verdict is {@code fallback} the bytes go again over plain
     * HTTP, as that client does ({@code declinedGet=status:code} first says whether the declined PUT stored anything).
     */
    String put(SignedHttp http, Credential who, String name, String path, String query, int size, long seed,
            Map<String, String> opt) throws Exception {
        byte[] bytes = RdmaClientMain.random(size, seed);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(size, 4096);
            MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, 0, size);
            try (MemoryRegion region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ))) {
                String token = token(opt.getOrDefault("session", sessionOrBlank(name)), region, size);
                HttpResponse<byte[]> r = http.send(who, "PUT", path, query, null, Map.of("x-amz-rdma-token", token),
                        Map.of());
                String style = opt.getOrDefault("style", "objrdma");
                String verdict = verdictPut(style, r);
                String out = line(r) + " verdict=" + verdict + " verdicts=" + verdicts(r, false);
                if (verdict.equals("fallback")) {
                    if (query.isEmpty()) {
                        // a GET, not a HEAD: its 404 names NoSuchKey, so it is the gateway's answer
                        HttpResponse<byte[]> g = http.send(who, "GET", path, "", null, Map.of(), Map.of());
                        Raw seen = new Raw(g.statusCode(), Map.of(), new String(g.body(), StandardCharsets.UTF_8));
                        out += " declinedGet=" + g.statusCode() + ":" + seen.code();
                    }
                    HttpResponse<byte[]> again = http.send(who, "PUT", path, query, bytes, Map.of(), Map.of());
                    out += " fallback=" + again.statusCode() + again.headers().firstValue("ETag")
                            .map(e -> " fallbacketag=" + e.replace("\"", "")).orElse("");
                }
                return out;
            }
        }
    }

    /**
     * The token of a PUT of {@code random(seed)} (or of a GET into zeroed memory) from memory registered for the rest
     * of this JVM's life: for a request sent right before this JVM is frozen and killed.
     */
    String heldToken(String name, int size, long seed, boolean get) throws Exception {
        MemorySegment memory = Arena.global().allocate(size, 4096);
        if (!get) {
            MemorySegment.copy(RdmaClientMain.random(size, seed), 0, memory, ValueLayout.JAVA_BYTE, 0, size);
        }
        MemoryRegion region = transport.register(memory, get
                ? EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE) : EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        return token(session(name), region, size);
    }

    private String sessionOrBlank(String name) {
        Conn c = conns.get(name);
        return c == null ? name : c.session;
    }

    /** {@code rc:<session>:<16 hex address>:<hex size, 8 digits at least>:<8 hex rkey>}. */
    private static String token(String session, MemoryRegion region, int size) {
        return "rc:" + session + ":" + String.format("%016x", region.address()) + ":" + String.format("%08x", size) + ":"
                + String.format("%08x", region.rkey());
    }

    /**
     * What a client of {@code style} makes of a GET answer: {@code success} (the bytes are in its memory),
     * {@code fallback} (it takes the HTTP body) or {@code error}.
     * <ul>
     * <li>minio: success on {@code x-amz-rdma-reply} 200 or 206 with {@code x-amz-rdma-bytes-transferred}; anything
     *     else is an error (no fallback).
     * <li>cloudian: on HTTP 2xx, success on reply 200, 204 or 206, else fallback to the body; other HTTP status: error.
     * <li>objrdma (NVIDIA's contract, cuobj.md §10.3): on HTTP 2xx, success on reply 200/204/206, fallback on reply
     *     501 or none; other HTTP status: error.
     * </ul>
     */
    static String verdictGet(String style, HttpResponse<byte[]> r) {
        String reply = r.headers().firstValue("x-amz-rdma-reply").orElse("");
        boolean ok2xx = r.statusCode() / 100 == 2;
        return switch (style) {
            case "minio" -> (reply.equals("200") || reply.equals("206"))
                    && r.headers().firstValue("x-amz-rdma-bytes-transferred").isPresent() ? "success" : "error";
            case "cloudian" -> !ok2xx ? "error" : reply.matches("200|204|206") ? "success" : "fallback";
            case "objrdma" -> !ok2xx ? "error" : reply.matches("200|204|206") ? "success"
                    : reply.isEmpty() || reply.equals("501") ? "fallback" : "error";
            default -> throw new IllegalArgumentException("--style=objrdma|minio|cloudian, not " + style);
        };
    }

    /**
     * What a client of {@code style} makes of a PUT answer.
     * <ul>
     * <li>minio: success on HTTP 200 with a non-empty ETag (the reply header is not read); anything else: error.
     * <li>cloudian: on HTTP 2xx, success on reply exactly 200, else fallback (PUT again over HTTP); other status: error.
     * <li>objrdma (NVIDIA's contract): reply 501 (any HTTP status): fallback; HTTP 2xx with reply 200: success; else
     *     error.
     * </ul>
     */
    static String verdictPut(String style, HttpResponse<byte[]> r) {
        String reply = r.headers().firstValue("x-amz-rdma-reply").orElse("");
        boolean ok2xx = r.statusCode() / 100 == 2;
        return switch (style) {
            case "minio" -> r.statusCode() == 200 && !r.headers().firstValue("ETag").orElse("").isBlank()
                    ? "success" : "error";
            case "cloudian" -> !ok2xx ? "error" : reply.equals("200") ? "success" : "fallback";
            case "objrdma" -> reply.equals("501") ? "fallback" : ok2xx && reply.equals("200") ? "success" : "error";
            default -> throw new IllegalArgumentException("--style=objrdma|minio|cloudian, not " + style);
        };
    }

    /** {@code objrdma:V,minio:V,cloudian:V}: what each client style makes of the same answer. */
    private static String verdicts(HttpResponse<byte[]> r, boolean get) {
        StringBuilder b = new StringBuilder();
        for (String style : new String[] {"objrdma", "minio", "cloudian"}) {
            b.append(b.isEmpty() ? "" : ",").append(style).append(':').append(get ? verdictGet(style, r)
                    : verdictPut(style, r));
        }
        return b.toString();
    }

    private static String line(HttpResponse<byte[]> r) {
        StringBuilder b = new StringBuilder(r.statusCode() / 100 == 2 ? "OK" : "FAIL");
        b.append(" status=").append(r.statusCode());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Code>([^<]*)</Code>").matcher(
                r.body().length > 65536 ? "" : new String(r.body(), StandardCharsets.UTF_8));
        if (m.find()) {
            b.append(" code=").append(m.group(1));
        }
        for (String h : new String[] {"ETag", "Content-Range", "x-amz-rdma-reply", "x-amz-rdma-bytes-transferred"}) {
            r.headers().firstValue(h).ifPresent(v -> b.append(' ').append(h.toLowerCase(Locale.ROOT)).append('=')
                    .append(v.replace(' ', '_').replace("\"", "")));
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ unsigned routes over a raw socket

    private record Raw(int status, Map<String, String> headers, String body) {
        String code() {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Code>([^<]*)</Code>").matcher(body);
            return m.find() ? m.group(1) : null;
        }
    }

    /** An unsigned, body-less POST from local address {@code from}, as the client library sends it. */
    private Raw unsigned(String from, String path, Map<String, String> headers) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(host, port), 10_000);
            s.setSoTimeout(60_000);
            StringBuilder req = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host)
                    .append(':').append(port).append("\r\n");
            headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
            req.append("Content-Type: application/octet-stream\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String answer = new String(readAll(s.getInputStream()), StandardCharsets.ISO_8859_1);
            int end = answer.indexOf("\r\n\r\n");
            String[] lines = answer.substring(0, end < 0 ? answer.length() : end).split("\r\n");
            Map<String, String> h = new HashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    h.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
                }
            }
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), h, end < 0 ? "" : answer.substring(end + 4));
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    void close() {
        conns.values().forEach(c -> c.channel.close());
        conns.clear();
    }
}
