package org.objrdma.itests.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.itests.rdma.SignedHttp.Credential;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;

/**
 * A client that behaves as hipObject's v2 reference data client does (its published behaviour, rc-session.md
 * §1.4–1.6 and issue 26), on the project's verbs binding: the control POSTs written by hand on a socket, every
 * header signed with credential scope service {@code hipobj} over the empty body's SHA-256 and no
 * {@code x-amz-content-sha256}; a PREPARE token naming its queue pair and GID with rkey, address and length 0; the
 * GET memory (a whole MR registered for remote access, not a window) named in READY's {@code x-amz-rdma-mr-addr} /
 * {@code x-amz-rdma-mr-rkey}; a GET's receive posted before READY, a PUT's WRITE_WITH_IMM of the cookie into the
 * staging region the PREPARE answer names.
 *
 * <p>Command {@code hip get|put PATH QUERY SIZE SEED [options]}, answered {@code OK|FAIL status=.. code=.. ...}:
 * {@code --cookie=HEX} (default 1a2b3c4d), {@code --offset=N}, {@code --mr-in-prepare} (also declare the MR in
 * PREPARE, as some versions of the reference client do), {@code --ready-cookie=HEX} / {@code --ready-offset=N} /
 * {@code --ready-rkey=xor} / {@code --ready-as=NAME} (a first READY that is wrong that way, its answer printed
 * as {@code first=}, then the right one), {@code --no-ready} (PREPARE only, the session id printed: for limit rows; {@code hipcancel SESSION}
 * ends it), {@code --stall} (PUT: half the bytes with a plain WRITE, READY sent, {@code STARTED} printed, never the
 * WRITE_WITH_IMM: the caller kills this JVM or waits for the timeout answer).
 */
final class HipObjClient {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);
    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private final String host;
    private final int port;
    private final Transport transport;

    HipObjClient(String host, int port, Transport transport) {
        this.host = host;
        this.port = port;
        this.transport = transport;
    }

    /** A control answer: status line code and the headers (lower-case names), the error code if any. */
    record Answer(int status, Map<String, String> headers, String code) {
        String header(String name) {
            return headers.get(name);
        }

        String describe() {
            StringBuilder b = new StringBuilder(status / 100 == 2 ? "OK" : "FAIL").append(" status=").append(status);
            if (code != null) {
                b.append(" code=").append(code);
            }
            String marker = headers.get("x-amz-rdma-protocol-status");
            if (marker != null) {
                b.append(" protocolStatus=").append(marker);
            }
            return b.toString();
        }
    }

    // ------------------------------------------------------------------ the control exchange

    private String sign(Credential who, String path, Map<String, String> headers) throws Exception {
        String date = headers.get("x-amz-date");
        StringBuilder canonicalHeaders = new StringBuilder();
        headers.forEach((k, v) -> canonicalHeaders.append(k).append(':').append(v).append('\n'));
        String signed = String.join(";", headers.keySet());
        String canonical = "POST\n" + path + "\n\n" + canonicalHeaders + "\n" + signed + "\n" + EMPTY_SHA256;
        String scope = date.substring(0, 8) + "/us-east-1/hipobj/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8)));
        byte[] k = hmac(("AWS4" + who.secret()).getBytes(StandardCharsets.UTF_8), date.substring(0, 8));
        for (String part : new String[] {"us-east-1", "hipobj", "aws4_request"}) {
            k = hmac(k, part);
        }
        return "AWS4-HMAC-SHA256 Credential=" + who.accessKey() + "/" + scope + ", SignedHeaders=" + signed
                + ", Signature=" + HexFormat.of().formatHex(hmac(k, toSign));
    }

    private static byte[] hmac(byte[] key, String data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the signed control POST on a socket of its own; {@link #read} takes the answer. */
    Socket send(Credential who, String route, Map<String, String> rdmaHeaders) throws Exception {
        Map<String, String> h = new TreeMap<>(rdmaHeaders);
        h.put("host", host);
        h.put("x-amz-date", AMZ_DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
        h.put("x-amz-rdma-protocol", "hipobj-rc-v2");
        String path = "/.hipobj-rc/" + route;
        StringBuilder b = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\n");
        h.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        b.append("Authorization: ").append(sign(who, path, h)).append("\r\ncontent-length: 0\r\n\r\n");
        Socket s = new Socket(host, port);
        s.setSoTimeout((int) TIMEOUT.toMillis() * 2);
        s.getOutputStream().write(b.toString().getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        return s;
    }

    static Answer read(Socket s) throws IOException {
        try (s) {
            InputStream in = s.getInputStream();
            StringBuilder head = new StringBuilder();
            for (int c; (c = in.read()) >= 0; ) {
                head.append((char) c);
                if (head.toString().endsWith("\r\n\r\n")) {
                    break;
                }
            }
            String[] lines = head.toString().split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
                }
            }
            byte[] body = new byte[0];
            String length = headers.get("content-length");
            if (length != null) {
                body = in.readNBytes(Integer.parseInt(length));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                for (int n; (n = Integer.parseInt(line(in).split(";")[0].strip(), 16)) > 0; ) {
                    all.write(in.readNBytes(n));
                    line(in);
                }
                body = all.toByteArray();
            }
            Matcher m = CODE.matcher(new String(body, StandardCharsets.UTF_8));
            return new Answer(status, headers, m.find() ? m.group(1) : null);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    Answer call(Credential who, String route, Map<String, String> rdmaHeaders) throws Exception {
        return read(send(who, route, rdmaHeaders));
    }

    // ------------------------------------------------------------------ transfers

    /** A GET or PUT as the reference client makes it; see the class comment for the options. */
    String transfer(Credential who, boolean get, String target, int size, long seed, Map<String, String> opt)
            throws Exception {
        return transfer(who, null, get, target, size, seed, opt);
    }

    /** {@code other}: with {@code --ready-as}, the credential of a first READY from another principal. */
    String transfer(Credential who, Credential other, boolean get, String target, int size, long seed,
            Map<String, String> opt) throws Exception {
        int cookie = (int) Long.parseLong(opt.getOrDefault("cookie", "1a2b3c4d"), 16);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(size, 4096);
            if (!get) {
                MemorySegment.copy(RdmaClientMain.random(size, seed), 0, buffer, ValueLayout.JAVA_BYTE, 0, size);
            }
            try (MemoryRegion mr = transport.register(buffer, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ));
                 Channel qp = transport.openChannel(new ChannelOptions(8, 8, 1, TIMEOUT))) {
                EndpointInfo.Verbs me = (EndpointInfo.Verbs) qp.localEndpoint();
                Map<String, String> prepare = new TreeMap<>();
                prepare.put("x-amz-rdma-token", RcToken.forVerbs(me, null).format()); // rkey, addr, len 0
                prepare.put("x-amz-rdma-psn", String.format("%06x", me.psn()));
                prepare.put("x-amz-rdma-cookie", String.format("%08x", cookie));
                prepare.put("x-amz-rdma-op", get ? "GET" : "PUT");
                prepare.put("x-amz-rdma-target", target);
                prepare.put("x-amz-rdma-size", String.valueOf(size));
                prepare.put("x-amz-rdma-qpn", Integer.toHexString(me.qpn()));
                if (opt.containsKey("offset")) {
                    prepare.put("x-amz-rdma-offset", opt.get("offset"));
                }
                if (opt.containsKey("mr-in-prepare")) {
                    prepare.put("x-amz-rdma-mr-addr", Long.toHexString(mr.address()));
                    prepare.put("x-amz-rdma-mr-rkey", Integer.toHexString(mr.rkey()));
                }
                Answer p = call(who, "prepare", prepare);
                if (p.status() != 200) {
                    return p.describe();
                }
                String session = p.header("x-amz-rdma-session");
                if (opt.containsKey("no-ready")) {
                    return p.describe() + " session=" + session;
                }
                String reply = p.header("x-amz-rdma-reply");
                RcToken server = RcToken.parse(reply.substring("200:".length())).value();
                if (server.qpNum() != Long.parseLong(p.header("x-amz-rdma-qpn"), 16)) {
                    return "FAIL error=reply_token_qpn_mismatch";
                }
                int serverPsn = Integer.parseInt(p.header("x-amz-rdma-psn"), 16);
                qp.connect(RcTokenCodecs.decode(server, new RcTokenCodec.Context(serverPsn, Mtu.MTU_4096, null)).value());

                StringBuilder out = new StringBuilder();
                if (get) {
                    CompletableFuture<BatchResult> arrival = qp.submit(List.of(WorkRequest.recv(0x47)), TIMEOUT);
                    String firstWrong = wrongReady(other != null ? other : who, session, cookie, mr, me, opt);
                    if (firstWrong != null) {
                        out.append(" first=").append(firstWrong);
                    }
                    Answer r = call(who, "ready", readyHeaders(session, cookie, mr.address(), mr.rkey(), me));
                    String result = r.describe() + " session=" + session + " bytes=" + r.header("x-amz-rdma-bytes-transferred")
                            + out;
                    if (r.status() == 200) {
                        Completion c = arrival.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).completions().get(0);
                        boolean good = c.isSuccess() && c.opcode() == WcOpcode.RECV_RDMA_WITH_IMM && c.hasImmediate()
                                && c.immediate() == cookie;
                        result += " arrival=" + (good ? "imm-cookie" : c.status() + ":" + c.opcode());
                    }
                    return result + " crc=" + RdmaClientMain.crc(buffer, size);
                }
                long stagingAddr = Long.parseUnsignedLong(p.header("x-amz-rdma-mr-addr"), 16);
                int stagingRkey = (int) Long.parseLong(p.header("x-amz-rdma-mr-rkey"), 16);
                if (opt.containsKey("stall")) {
                    qp.submit(List.of(WorkRequest.write(1, new ScatterGatherEntry(mr, 0, size / 2), stagingAddr,
                            stagingRkey)), TIMEOUT).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    Socket ready = send(who, "ready", readyHeaders(session, cookie, mr.address(), mr.rkey(), me));
                    System.out.println("STARTED session=" + session);
                    System.out.flush();
                    return read(ready).describe() + " session=" + session + " stalled=true";
                }
                String firstWrong = wrongReady(who, session, cookie, mr, me, opt);
                if (firstWrong != null) {
                    out.append(" first=").append(firstWrong);
                }
                // READY first, then the write while the server handles it (the reference client's order)
                Socket ready = send(who, "ready", readyHeaders(session, cookie, mr.address(), mr.rkey(), me));
                BatchResult wrote = qp.submit(List.of(WorkRequest.writeWithImm(2, new ScatterGatherEntry(mr, 0, size),
                        stagingAddr, stagingRkey, cookie)), TIMEOUT).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                Answer r = read(ready);
                return r.describe() + " session=" + session + " bytes=" + r.header("x-amz-rdma-bytes-transferred")
                        + " etag=" + String.valueOf(r.header("etag")).replace("\"", "") + " write="
                        + (wrote.completions().isEmpty() ? "none" : wrote.completions().get(0).status()) + out;
            }
        }
    }

    private static Map<String, String> readyHeaders(String session, int cookie, long addr, int rkey, EndpointInfo.Verbs me) {
        Map<String, String> h = new TreeMap<>();
        h.put("x-amz-rdma-session", session);
        h.put("x-amz-rdma-cookie", String.format("%08x", cookie));
        h.put("x-amz-rdma-mr-addr", Long.toHexString(addr));
        h.put("x-amz-rdma-mr-rkey", Integer.toHexString(rkey));
        h.put("x-amz-rdma-qpn", Integer.toHexString(me.qpn()));
        return h;
    }

    /** The first, wrong READY an option asks for ({@code status/code} of its answer), or null. */
    private String wrongReady(Credential who, String session, int cookie, MemoryRegion mr, EndpointInfo.Verbs me,
            Map<String, String> opt) throws Exception {
        Map<String, String> h;
        if (opt.containsKey("ready-cookie")) {
            h = readyHeaders(session, (int) Long.parseLong(opt.get("ready-cookie"), 16), mr.address(), mr.rkey(), me);
        } else if (opt.containsKey("ready-offset")) {
            h = readyHeaders(session, cookie, mr.address() + Long.parseLong(opt.get("ready-offset")), mr.rkey(), me);
        } else if (opt.containsKey("ready-as")) {
            h = readyHeaders(session, cookie, mr.address(), mr.rkey(), me); // right in all but the signer
        } else if (opt.containsKey("ready-rkey")) {
            h = readyHeaders(session, cookie, mr.address(), mr.rkey() ^ 0x100, me);
        } else {
            return null;
        }
        Answer a = call(who, "ready", h);
        return a.status() + "/" + a.code();
    }

    /** READY of a session id nobody prepared. */
    String unknownReady(Credential who) throws Exception {
        Map<String, String> h = new TreeMap<>();
        h.put("x-amz-rdma-session", "00112233445566778899aabbccddeeff");
        h.put("x-amz-rdma-cookie", "00000000");
        h.put("x-amz-rdma-mr-addr", "1000");
        h.put("x-amz-rdma-mr-rkey", "1");
        h.put("x-amz-rdma-qpn", "11");
        return call(who, "ready", h).describe();
    }

    String cancel(Credential who, String session) throws Exception {
        return call(who, "cancel", Map.of("x-amz-rdma-session", session)).describe();
    }
}
