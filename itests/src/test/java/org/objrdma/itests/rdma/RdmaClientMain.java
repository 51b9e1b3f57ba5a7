package org.objrdma.itests.rdma;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.client.CuObjGrant;
import org.objrdma.client.RcClient;
import org.objrdma.client.RcOutcome;
import org.objrdma.client.RcTransfer;
import org.objrdma.itests.rdma.SignedHttp.Credential;
import org.objrdma.transport.tcp.StandaloneTcpTransport;
import org.objrdma.transport.tcp.TcpTransports;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;
import org.objrdma.wire.RcTokenHeader;

/**
 * The RDMA client of {@code RdmaRoutesIT}, run in its own JVM on a plain class path: objrdma-client, objrdma-wire,
 * the standalone TCP transport ({@link TcpTransports}) and the AWS SDK's signer, nothing of Karaf. It reads one
 * command per line on stdin and answers each with one line {@code OK k=v ...} or {@code FAIL k=v ...} on stdout
 * (object bytes are never printed: their CRC32C is). Arguments: {@code host port accessKey secret}; more
 * credentials with {@code cred NAME AK SECRET}.
 *
 * <p>Commands (QUERY is the raw query or {@code -}; {@code --as=NAME} signs as another credential,
 * {@code --agent=NAME} uses that credential's cuObject agent):
 * <ul>
 * <li>{@code httpput PATH QUERY SIZE SEED}, {@code httpget PATH QUERY [--range=A-B]}, {@code http METHOD PATH QUERY BODY|-}
 * <li>{@code get cuobj|rc PATH QUERY SIZE [--range=A-B] [--offset=N] [--slow]}: into registered memory
 * <li>{@code put cuobj|rc PATH QUERY SIZE SEED [--slow]}: from registered memory holding {@code random(SEED)}
 * <li>{@code rcforeign PATH SIZE --other=NAME [--put=SEED]}: PREPARE (a GET, or a PUT of {@code random(SEED)}) as us,
 *     READY as NAME (prints {@code MID ...}), then after a
 *     {@code go} line our own READY
 * <li>{@code rcretry PATH SIZE}: PREPARE a GET, a READY without the data phase (prints {@code MID ...} with its
 *     answer), then after a {@code go} line the whole READY
 * <li>{@code rcprepare TARGET SIZE SEED}: PREPARE a PUT of {@code random(SEED)} and hold it ({@code OK session=...});
 *     {@code rcready SESSION} runs its data phase and READY later
 * <li>{@code rcsize PATH SIZEHEADER}, {@code badtoken PATH}, {@code unsigned PATH SIZE}: the refusal rows
 * </ul>
 * <p>{@code --slow}: the transfer is made to stop in the middle, deterministically. A GET (both protocols) and a
 * cuObject PUT print {@code STARTED ...}, write their request (RC: the READY) to the socket and freeze this whole JVM
 * (SIGSTOP through FFM's {@code raise}): the gateway's transfer then stalls against a client that neither reads nor
 * answers. A cuObject one first moves one byte of {@code --warm=PATH} so that the agent lane is connected (a frozen
 * agent could not accept the gateway's dial). An RC PUT writes half its bytes into the staging slice with a plain
 * WRITE, sends READY and never the WRITE_WITH_IMM that would end the data phase. The test waits until the gateway
 * shows the transfer in flight, then kills this JVM, or stops the transport and resumes it (SIGCONT), when the
 * answer's status is printed.
 */
public final class RdmaClientMain {

    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int SIGSTOP = 19; // Linux x86-64 / aarch64
    /**
     * libc's {@code raise}, linked (and called once with signal 0, which sends nothing) at start: linking a downcall
     * the first time takes long enough on a busy machine for the gateway to finish a 64 MiB transfer between the
     * request and the freeze.
     */
    private static final MethodHandle RAISE;

    static {
        Linker linker = Linker.nativeLinker();
        RAISE = linker.downcallHandle(linker.defaultLookup().find("raise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try {
            int unused = (int) RAISE.invokeExact(0);
        } catch (Throwable e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** System property: the software verbs device to load; set, the RC transfers run over verbs ({@link VerbsRows}). */
    public static final String VERBS_PROPERTY = "objrdma.it.client.verbs";

    private final SignedHttp http;
    private final StandaloneTcpTransport transport;
    /** What the RC transfers run on: the TCP transport, or the verbs one with {@link #VERBS_PROPERTY}. */
    private final org.objrdma.api.transport.Transport rcTransport;
    private final VerbsRows verbs;
    /** cuObject over RC connections (issue 26 §1), on the verbs transport; null without {@link #VERBS_PROPERTY}. */
    private final RcConnectionRows rcConnections;
    private final Map<String, Credential> credentials = new HashMap<>();
    private final Map<String, CuObjAgent> agents = new HashMap<>();
    private final RcClient rc;
    private final BufferedReader in;
    private final Arena arena = Arena.ofShared();

    private RdmaClientMain(String host, int port, Credential main, BufferedReader in) throws Exception {
        this.http = new SignedHttp(host, port);
        this.transport = TcpTransports.startOnLoopback();
        this.credentials.put("main", main);
        this.verbs = System.getProperty(VERBS_PROPERTY) == null ? null : VerbsRows.open(System.getProperty(VERBS_PROPERTY));
        this.rcTransport = verbs == null ? transport : verbs.transport();
        this.rc = new RcClient(rcTransport, TIMEOUT);
        this.rcConnections = verbs == null ? null : new RcConnectionRows(verbs.transport(), host, port);
        this.in = in;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        RdmaClientMain client = new RdmaClientMain(args[0], Integer.parseInt(args[1]), new Credential(args[2], args[3]), in);
        System.out.println("HELLO agent=" + client.transport.agentAddress());
        System.out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            String answer;
            try {
                answer = client.run(line.strip().split(" "));
            } catch (Exception | AssertionError e) {
                answer = "FAIL error=" + e.toString().replace(' ', '_').replace('\n', '_');
            }
            System.out.println(answer);
            System.out.flush();
        }
        client.transport.close();
        if (client.rcConnections != null) {
            client.rcConnections.close();
        }
        if (client.verbs != null) {
            client.verbs.close();
        }
        // stdin closed: a clean exit (a JVM that writes an AOT cache at exit, VictimPool's trainer, needs one) even
        // if a client library left a non-daemon thread behind
        System.exit(0);
    }

    private String run(String[] c) throws Exception {
        Map<String, String> opt = new HashMap<>();
        List<String> pos = new java.util.ArrayList<>();
        for (String s : c) {
            if (s.startsWith("--")) {
                int eq = s.indexOf('=');
                opt.put(eq < 0 ? s.substring(2) : s.substring(2, eq), eq < 0 ? "" : s.substring(eq + 1));
            } else {
                pos.add(s);
            }
        }
        Credential who = credentials.get(opt.getOrDefault("as", "main"));
        String query = pos.size() > 2 ? dash(pos.get(2)) : "";
        return switch (pos.get(0)) {
            case "cred" -> {
                credentials.put(pos.get(1), new Credential(pos.get(2), pos.get(3)));
                yield "OK";
            }
            case "httpput" -> describe(http.send(who, "PUT", pos.get(1), query, random(Integer.parseInt(pos.get(3)),
                    Long.parseLong(pos.get(4))), Map.of(), Map.of()), true);
            case "httpget" -> describe(http.send(who, "GET", pos.get(1), query, null,
                    opt.containsKey("range") ? Map.of("Range", "bytes=" + opt.get("range")) : Map.of(), Map.of()), true);
            case "http" -> describe(http.send(who, pos.get(1), pos.get(2), dash(pos.get(3)),
                    pos.get(4).equals("-") ? null : Base64.getDecoder().decode(pos.get(4)), Map.of(), Map.of()), true)
                    + " text=" + Base64.getEncoder().encodeToString(last.body());
            case "get" -> pos.get(1).equals("rc") ? rcGet(who, pos.get(2), dash(pos.get(3)), size(pos.get(4)), opt)
                    : cuObjGet(who, agent(opt), pos.get(2), dash(pos.get(3)), size(pos.get(4)), opt);
            case "put" -> pos.get(1).startsWith("rcc:") ? rcConnections.put(http, who, pos.get(1).substring(4), pos.get(2),
                    dash(pos.get(3)), size(pos.get(4)), Long.parseLong(pos.get(5)), opt)
                    : pos.get(1).equals("rc") ? rcPut(who, pos.get(2), dash(pos.get(3)), size(pos.get(4)),
                    Long.parseLong(pos.get(5)), opt.containsKey("slow"), opt.get("forge"))
                    : cuObjPut(who, agent(opt), pos.get(2), dash(pos.get(3)), size(pos.get(4)), Long.parseLong(pos.get(5)),
                    opt);
            case "rcforeign" -> rcForeign(who, credentials.get(opt.get("other")), pos.get(1), size(pos.get(2)),
                    opt.get("put"));
            case "rcretry" -> rcRetry(who, pos.get(1), size(pos.get(2)));
            case "rcprepare" -> rcPrepare(who, pos.get(1), size(pos.get(2)), Long.parseLong(pos.get(3)));
            case "rcready" -> rcReady(who, pos.get(1));
            case "rcsize" -> rcSizeRow(who, pos.get(1), pos.get(2));
            case "badtoken" -> describe(http.send(who, "GET", pos.get(1), "", null, Map.of("x-amz-rdma-token", "zz"),
                    Map.of()), false);
            case "unsigned" -> unsignedRow(who, pos.get(1), size(pos.get(2)));
            case "cuverbs" -> describe(verbs.cuObjectOverVerbs(http, who, pos.get(1), pos.get(2), size(pos.get(3)),
                    Long.parseLong(pos.get(4))), pos.get(1).equals("get")) + " " + verbs.lastMemory();
            case "verbsobjects" -> verbs.liveObjects();
            case "rcc" -> rcConnection(pos, opt, who);
            // hipObject's reference client's behaviour (HipObjClient), on the verbs transport
            case "hip" -> hip().transfer(who, credentials.get(opt.get("ready-as")), pos.get(1).equals("get"),
                    pos.get(2) + (pos.get(3).equals("-") ? "" : "?" + pos.get(3)), size(pos.get(4)),
                    Long.parseLong(pos.get(5)), opt);
            case "hipunknown" -> hip().unknownReady(who);
            case "hipcancel" -> hip().cancel(who, pos.get(1));
            case "hiponeshot" -> oneShot(who, pos.get(1), pos.get(2), size(pos.get(3)));
            default -> "FAIL error=unknown_command_" + pos.get(0);
        };
    }

    /**
     * {@code rcc connect|disconnect|forget|get|put ...}: cuObject over RC connections ({@link RcConnectionRows});
     * {@code rcc put NAME PATH QUERY SIZE SEED --slow} and {@code rcc get NAME PATH SIZE --slow} send the request and
     * freeze this JVM ({@link #frozenRequest}).
     */
    private String rcConnection(List<String> pos, Map<String, String> opt, Credential who) throws Exception {
        RcConnectionRows r = rcConnections;
        return switch (pos.get(1)) {
            case "connect" -> r.connect(pos.get(2), opt);
            case "disconnect" -> r.disconnect(pos.get(2), opt);
            case "forget" -> r.forget(pos.get(2));
            case "get" -> opt.containsKey("slow")
                    ? frozenRequest(who, "GET", pos.get(3), "", Map.of("x-amz-rdma-token",
                            r.heldToken(pos.get(2), size(pos.get(4)), 0, true)), "rcget " + pos.get(3))
                    : r.get(http, who, pos.get(2), pos.get(3), size(pos.get(4)), opt);
            case "put" -> opt.containsKey("slow")
                    ? frozenRequest(who, "PUT", pos.get(3), dash(pos.get(4)), Map.of("x-amz-rdma-token",
                            r.heldToken(pos.get(2), size(pos.get(5)), Long.parseLong(pos.get(6)), false)),
                            "rcput " + pos.get(3))
                    : r.put(http, who, pos.get(2), pos.get(3), dash(pos.get(4)), size(pos.get(5)),
                            Long.parseLong(pos.get(6)), opt);
            default -> "FAIL error=unknown_rcc_" + pos.get(1);
        };
    }

    private HipObjClient hip() {
        return new HipObjClient(http.host(), http.port(), verbs.transport());
    }

    /**
     * hipObject's single-round-trip form: its 88-hex token (this client's queue pair, its memory) on a plain GET or
     * PUT; a PUT carries the bytes, as such a client falls back to when told the protocol is unsupported.
     */
    private String oneShot(Credential who, String op, String path, int size) throws Exception {
        try (Arena own = Arena.ofShared();
             var mr = verbs.transport().register(own.allocate(size, 4096), java.util.EnumSet.of(
                     org.objrdma.api.transport.Access.LOCAL_WRITE, org.objrdma.api.transport.Access.REMOTE_WRITE));
             var qp = verbs.transport().openChannel(org.objrdma.api.transport.ChannelOptions.DEFAULT)) {
            String token = RcToken.forVerbs((EndpointInfo.Verbs) qp.localEndpoint(),
                    new RemoteRegion(mr.address(), size, mr.rkey())).format();
            HttpResponse<byte[]> r = http.send(who, op.equals("get") ? "GET" : "PUT", path, "", null,
                    Map.of("x-amz-rdma-token", token), Map.of());
            return describe(r, false) + " protocolStatus=" + r.headers().firstValue("x-amz-rdma-protocol-status")
                    .orElse("-") + " crc=" + crc(mr.segment(), size);
        }
    }

    private static String dash(String s) {
        return s.equals("-") ? "" : s;
    }

    private static int size(String s) {
        return Integer.parseInt(s);
    }

    private CuObjAgent agent(Map<String, String> opt) throws Exception {
        String name = opt.getOrDefault("agent", opt.getOrDefault("as", "main"));
        CuObjAgent a = agents.get(name);
        if (a == null) {
            // per principal: the key a gateway deriving agent keys per principal uses; the IT configures the shared
            // agent.key to the main credential's derived key, so both modes serve the main credential
            a = CuObjAgent.openForPrincipal(transport, credentials.get(name).secret());
            agents.put(name, a);
        }
        return a;
    }

    // ------------------------------------------------------------------ cuObject

    private HttpResponse<byte[]> last;

    private String cuObjGet(Credential who, CuObjAgent agent, String path, String query, int size,
            Map<String, String> opt) throws Exception {
        try (ClientMemory mem = ClientMemory.register(transport, arena.allocate(size, 4096))) {
            Map<String, String> headers = new LinkedHashMap<>();
            if (opt.containsKey("range")) {
                headers.put("Range", "bytes=" + opt.get("range"));
            }
            if (opt.containsKey("slow")) {
                warm(who, agent, opt.get("warm"));
                try (CuObjGrant grant = agent.descriptor(mem, 0, size, Op.GET)) {
                    headers.put("x-amz-rdma-token", grant.descriptor().format());
                    return frozenRequest(who, "GET", path, query, headers, "proto=cuobj op=GET");
                }
            }
            // above the agent's largest request the GET is several requests, each for its own range (as the SDK asks)
            boolean split = size > agent.maxRequestSize() && !opt.containsKey("range");
            long moved = agent.get(mem, 0, size, req -> {
                headers.put("x-amz-rdma-token", req.headerValue());
                if (split) {
                    headers.put("Range", "bytes=" + req.objectOffset() + "-" + (req.objectOffset() + req.size() - 1));
                }
                try {
                    last = http.send(who, "GET", path, query, null, headers, Map.of());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                String n = last.headers().firstValue("x-amz-rdma-bytes-transferred").orElse(null);
                return n == null ? -5 : Long.parseLong(n);
            });
            return describe(last, false) + " moved=" + moved + " crc=" + crc(mem.segment(), size);
        }
    }

    private String cuObjPut(Credential who, CuObjAgent agent, String path, String query, int size, long seed,
            Map<String, String> opt) throws Exception {
        boolean slow = opt.containsKey("slow");
        try (ClientMemory mem = ClientMemory.register(transport, arena.allocate(size, 4096))) {
            MemorySegment.copy(random(size, seed), 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, size);
            if (slow) {
                warm(who, agent, opt.get("warm"));
                try (CuObjGrant grant = agent.descriptor(mem, 0, size, Op.PUT)) {
                    return frozenRequest(who, "PUT", path, query, Map.of("x-amz-rdma-token", grant.descriptor().format()),
                            "proto=cuobj op=PUT");
                }
            }
            if (size > agent.maxRequestSize() && query.isEmpty()) {
                return cuObjMultipartPut(who, agent, mem, path, size);
            }
            long moved = agent.put(mem, 0, size, req -> {
                try {
                    // as the SDK asks for it: the gateway answers the CRC32C it computed over the bytes that arrived
                    last = http.send(who, "PUT", path, query, null, Map.of("x-amz-rdma-token", req.headerValue(),
                            "x-amz-sdk-checksum-algorithm", "CRC32C"), Map.of());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return last.statusCode() == 200 ? req.size() : -5;
            });
            return describe(last, false) + " moved=" + moved + " crc=" + crc(mem.segment(), size);
        }
    }

    /**
     * A PUT above the agent's largest request (1 GiB) cannot be one PutObject: each request would replace the object.
     * As the SDK plugin and {@code bin/objrdma} do, it becomes a multipart upload, one UploadPart over cuObject per
     * request (part n at object offset (n-1) · 1 GiB), then CompleteMultipartUpload over HTTP.
     */
    private String cuObjMultipartPut(Credential who, CuObjAgent agent, ClientMemory mem, String path, int size)
            throws Exception {
        HttpResponse<byte[]> created = http.send(who, "POST", path, "uploads", null, Map.of(), Map.of());
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(new String(created.body(), StandardCharsets.UTF_8));
        if (created.statusCode() != 200 || !m.find()) {
            return describe(created, false);
        }
        String upload = m.group(1);
        StringBuilder parts = new StringBuilder("<CompleteMultipartUpload>");
        long moved = agent.put(mem, 0, size, req -> {
            int part = (int) (req.objectOffset() / agent.maxRequestSize()) + 1;
            try {
                last = http.send(who, "PUT", path, "partNumber=" + part + "&uploadId=" + upload, null,
                        Map.of("x-amz-rdma-token", req.headerValue()), Map.of());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            parts.append("<Part><PartNumber>").append(part).append("</PartNumber><ETag>")
                    .append(last.headers().firstValue("ETag").orElse("")).append("</ETag></Part>");
            return last.statusCode() == 200 ? req.size() : -5;
        });
        if (moved != size) {
            return describe(last, false) + " moved=" + moved;
        }
        last = http.send(who, "POST", path, "uploadId=" + upload,
                parts.append("</CompleteMultipartUpload>").toString().getBytes(StandardCharsets.UTF_8), Map.of(), Map.of());
        return describe(last, false) + " moved=" + moved + " crc=" + crc(mem.segment(), size);
    }

    // ------------------------------------------------------------------ hipobj-rc-v2

    private record Prepared(HttpResponse<byte[]> answer, RcTransfer transfer, PrepareResponse prepare) {
    }

    private Prepared prepare(Credential who, Op op, ClientMemory mem, String target, long offset, int size,
            String sizeHeader) throws Exception {
        return prepare(who, op, mem, target, offset, size, sizeHeader, null);
    }

    /** {@code forge} ({@code rkey} or {@code addr}): GET names, PUT writes into, memory the server never granted. */
    private Prepared prepare(Credential who, Op op, ClientMemory mem, String target, long offset, int size,
            String sizeHeader, String forge) throws Exception {
        RcTransfer tr = rc.begin(op, mem, 0, size);
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-amz-rdma-protocol", "hipobj-rc-v2");
        h.put("x-amz-rdma-op", op.name());
        h.put("x-amz-rdma-target", target);
        h.put("x-amz-rdma-size", sizeHeader == null ? String.valueOf(size) : sizeHeader);
        h.put("x-amz-rdma-offset", String.valueOf(offset));
        h.put("x-amz-rdma-psn", Integer.toHexString(tr.psn()));
        h.put("x-amz-rdma-cookie", Integer.toHexString(tr.cookie()));
        h.put("x-amz-rdma-token", forge == null || op != Op.GET ? tr.token() : VerbsRows.forgedToken(tr, forge));
        if (tr.channelKey() != null) { // verbs: none
            h.put(RcTokenHeader.CHANNEL_KEY_HEADER, HexFormat.of().formatHex(tr.channelKey()));
        }
        HttpResponse<byte[]> r = http.send(who, "POST", "/.hipobj-rc/prepare", "", null, h, Map.of());
        if (r.statusCode() != 200) {
            tr.close();
            return new Prepared(r, null, null);
        }
        String reply = r.headers().firstValue("x-amz-rdma-reply").orElseThrow();
        RcToken token = RcToken.parse(reply.substring("200:".length())).value();
        byte[] key = r.headers().firstValue(RcTokenHeader.CHANNEL_KEY_HEADER).map(HexFormat.of()::parseHex).orElse(null);
        int psn = Integer.parseInt(r.headers().firstValue("x-amz-rdma-psn").orElseThrow(), 16);
        EndpointInfo server = RcTokenCodecs.decode(token, new RcTokenCodec.Context(psn, Mtu.MTU_4096, key)).value();
        RemoteRegion staging = new RemoteRegion(Long.parseUnsignedLong(r.headers().firstValue("x-amz-rdma-mr-addr")
                .orElseThrow(), 16), size, (int) Long.parseLong(r.headers().firstValue("x-amz-rdma-mr-rkey").orElseThrow(), 16));
        if (forge != null && op == Op.PUT) {
            staging = VerbsRows.forged(staging, forge);
        }
        return new Prepared(r, tr, new PrepareResponse(new SessionId(r.headers().firstValue("x-amz-rdma-session")
                .orElseThrow()), server, staging));
    }

    private Map<String, String> readyHeaders(Prepared p) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-amz-rdma-protocol", "hipobj-rc-v2");
        h.put("x-amz-rdma-session", p.prepare().sessionId().hex());
        h.put("x-amz-rdma-cookie", Integer.toHexString(p.transfer().cookie()));
        h.put("x-amz-rdma-qpn", Long.toHexString(p.transfer().clientEndpoint().queueNumber()));
        return h;
    }

    /** The data phase and READY together; the answer line of READY with the client's outcome. */
    private String runRc(Credential who, Prepared p, MemorySegment mem, int size) throws Exception {
        CompletableFuture<RcOutcome> data = p.transfer().start(p.prepare());
        HttpResponse<byte[]> ready = http.send(who, "POST", "/.hipobj-rc/ready", "", null, readyHeaders(p), Map.of());
        RcOutcome outcome = data.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        p.transfer().close();
        last = ready;
        return describe(ready, false) + " session=" + p.prepare().sessionId().hex() + " outcome=" + outcome.ok()
                + ":" + outcome.status() + " crc=" + crc(mem, size);
    }

    private String rcGet(Credential who, String path, String query, int size, Map<String, String> opt) throws Exception {
        long offset = Long.parseLong(opt.getOrDefault("offset", "0"));
        // memory of its own, freed after the call: the big runs move several 1.25 GiB objects through one JVM
        try (Arena own = Arena.ofShared();
             ClientMemory mem = ClientMemory.register(rcTransport, own.allocate(size, 4096))) {
            Prepared p = prepare(who, Op.GET, mem, path + (query.isEmpty() ? "" : "?" + query), offset, size, null,
                    opt.get("forge"));
            if (p.transfer() == null) {
                return describe(p.answer(), false);
            }
            String range = p.answer().headers().firstValue("Content-Range").map(v -> " prepareRange=" + v.replace(' ', '_'))
                    .orElse("");
            if (opt.containsKey("slow")) {
                p.transfer().start(p.prepare()); // the receive posted: the server may write at READY
                // connected before this JVM freezes: a frozen client could not answer the server's own dial
                long until = System.nanoTime() + TIMEOUT.toNanos();
                while (p.transfer().channel().state() != org.objrdma.api.transport.ChannelState.CONNECTED
                        && System.nanoTime() < until) {
                    Thread.sleep(1);
                }
                String resumed = frozenRequest(who, "POST", "/.hipobj-rc/ready", "", readyHeaders(p),
                        "proto=rc op=GET session=" + p.prepare().sessionId().hex());
                p.transfer().close();
                return resumed + " crc=" + crc(mem.segment(), size);
            }
            return runRc(who, p, mem.segment(), size) + range;
        }
    }

    private String rcPut(Credential who, String path, String query, int size, long seed, boolean slow, String forge)
            throws Exception {
        try (Arena own = Arena.ofShared();
             ClientMemory mem = ClientMemory.register(rcTransport, own.allocate(size, 4096))) {
            MemorySegment.copy(random(size, seed), 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, size);
            Prepared p = prepare(who, Op.PUT, mem, path + (query.isEmpty() ? "" : "?" + query), 0, size, null, forge);
            if (p.transfer() == null) {
                return describe(p.answer(), false);
            }
            if (!slow) {
                return runRc(who, p, mem.segment(), size);
            }
            // half the bytes with a plain WRITE into the staging slice, READY, and never the WRITE_WITH_IMM that
            // would complete the data phase: the session is mid-PUT until this JVM dies
            var channel = p.transfer().channel();
            channel.connect(p.prepare().serverEndpoint());
            RemoteRegion staging = p.prepare().stagingRegion();
            var half = channel.submit(List.of(WorkRequest.write(1, new ScatterGatherEntry(mem.region(), 0, size / 2),
                    staging.address(), staging.rkey())), TIMEOUT).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            System.out.println("STARTED session=" + p.prepare().sessionId().hex() + " half=" + half.completions()
                    .toString().replace(' ', '_'));
            System.out.flush();
            // the READY answer comes only if the data phase ends without us (the transport went away)
            http.sendAsync(who, "POST", "/.hipobj-rc/ready", "", null, readyHeaders(p)).thenAccept(r -> {
                System.out.println(describe(r, false) + " session=" + p.prepare().sessionId().hex());
                System.out.flush();
            });
            Thread.sleep(Long.MAX_VALUE);
            return "FAIL";
        }
    }

    private String rcForeign(Credential who, Credential other, String path, int size, String putSeed) throws Exception {
        try (ClientMemory mem = ClientMemory.register(rcTransport, arena.allocate(size, 4096))) {
            if (putSeed != null) {
                MemorySegment.copy(random(size, Long.parseLong(putSeed)), 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, size);
            }
            Prepared p = prepare(who, putSeed == null ? Op.GET : Op.PUT, mem, path, 0, size, null);
            if (p.transfer() == null) {
                return describe(p.answer(), false);
            }
            HttpResponse<byte[]> foreign = http.send(other, "POST", "/.hipobj-rc/ready", "", null, readyHeaders(p), Map.of());
            HttpResponse<byte[]> cancel = http.send(other, "POST", "/.hipobj-rc/cancel", "", null,
                    Map.of("x-amz-rdma-protocol", "hipobj-rc-v2", "x-amz-rdma-session", p.prepare().sessionId().hex()),
                    Map.of());
            System.out.println("MID session=" + p.prepare().sessionId().hex() + " foreign=" + describe(foreign, false)
                    .replace(' ', ',') + " foreignCancel=" + cancel.statusCode());
            System.out.flush();
            String go = in.readLine();
            if (!"go".equals(go)) {
                p.transfer().close();
                return "FAIL error=expected_go";
            }
            return runRc(who, p, mem.segment(), size);
        }
    }

    /**
     * PREPARE a GET, READY without starting the data phase (prints {@code MID session=.. first=<answer>}: a READY
     * refused before it touched the session, e.g. 429 with no ready slot free), then after a {@code go} line the
     * whole READY again.
     */
    private String rcRetry(Credential who, String path, int size) throws Exception {
        try (ClientMemory mem = ClientMemory.register(rcTransport, arena.allocate(size, 4096))) {
            Prepared p = prepare(who, Op.GET, mem, path, 0, size, null);
            if (p.transfer() == null) {
                return describe(p.answer(), false);
            }
            HttpResponse<byte[]> first = http.send(who, "POST", "/.hipobj-rc/ready", "", null, readyHeaders(p), Map.of());
            System.out.println("MID session=" + p.prepare().sessionId().hex() + " first=" + describe(first, false)
                    .replace(' ', ','));
            System.out.flush();
            String go = in.readLine();
            if (!"go".equals(go)) {
                p.transfer().close();
                return "FAIL error=expected_go";
            }
            return runRc(who, p, mem.segment(), size);
        }
    }

    /** A PUT session PREPARED by {@code rcprepare} and its client memory, until {@code rcready}. */
    private record Held(Prepared prepared, ClientMemory memory, int size) {
    }

    private final Map<String, Held> held = new HashMap<>();

    /** PREPARE a PUT of {@code random(seed)} and hold it: {@code OK session=...}; {@code rcready} finishes it. */
    private String rcPrepare(Credential who, String target, int size, long seed) throws Exception {
        ClientMemory mem = ClientMemory.register(rcTransport, arena.allocate(size, 4096));
        MemorySegment.copy(random(size, seed), 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, size);
        Prepared p = prepare(who, Op.PUT, mem, target, 0, size, null);
        if (p.transfer() == null) {
            mem.close();
            return describe(p.answer(), false);
        }
        held.put(p.prepare().sessionId().hex(), new Held(p, mem, size));
        return "OK session=" + p.prepare().sessionId().hex();
    }

    /** The data phase and READY of a session {@code rcprepare} holds. */
    private String rcReady(Credential who, String session) throws Exception {
        Held h = held.remove(session);
        if (h == null) {
            return "FAIL error=no_held_session_" + session;
        }
        try (ClientMemory mem = h.memory()) {
            return runRc(who, h.prepared(), mem.segment(), h.size());
        }
    }

    private String rcSizeRow(Credential who, String target, String sizeHeader) throws Exception {
        try (ClientMemory mem = ClientMemory.register(rcTransport, arena.allocate(4096, 4096))) {
            return describe(prepare(who, Op.GET, mem, target, 0, 4096, sizeHeader).answer(), false);
        }
    }

    private String unsignedRow(Credential who, String path, int size) throws Exception {
        try (ClientMemory mem = ClientMemory.register(transport, arena.allocate(size, 4096));
             var grant = agent(Map.of()).descriptor(mem, 0, size, Op.GET)) {
            return describe(http.send(who, "GET", path, "", null, Map.of(), Map.of("x-amz-rdma-token",
                    grant.descriptor().format())), false) + " crc=" + crc(mem.segment(), size);
        }
    }

    // ------------------------------------------------------------------ the kill points

    /** A 1-byte RDMA GET of {@code path}: the agent lane is connected (the gateway keeps the connection). */
    private void warm(Credential who, CuObjAgent agent, String path) throws Exception {
        if (path == null) {
            throw new IllegalArgumentException("--slow on cuobj needs --warm=PATH of an existing object");
        }
        try (ClientMemory mem = ClientMemory.register(transport, arena.allocate(4096, 4096))) {
            long moved = agent.get(mem, 0, 1, req -> {
                try {
                    return http.send(who, "GET", path, "", null, Map.of("Range", "bytes=0-0", "x-amz-rdma-token",
                            req.headerValue()), Map.of()).headers().firstValue("x-amz-rdma-bytes-transferred")
                            .map(Long::parseLong).orElse(-5L);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            if (moved != 1) {
                throw new IllegalStateException("the warm-up GET of " + path + " moved " + moved);
            }
        }
    }

    /**
     * Prints {@code STARTED what}, writes the request to the kernel and stops this whole JVM at once (SIGSTOP): the
     * gateway serves the request against a client that neither reads nor answers, so its transfer stays in the
     * middle until the test kills this JVM (or resumes it: then the answer's status line is returned).
     */
    private String frozenRequest(Credential who, String method, String path, String query, Map<String, String> headers,
            String what) throws Exception {
        System.out.println("STARTED " + what);
        System.out.flush();
        java.net.Socket socket = http.sendRaw(who, method, path, query, headers);
        try {
            int failed = (int) RAISE.invokeExact(SIGSTOP);
            if (failed != 0) {
                throw new IllegalStateException("raise(SIGSTOP) returned " + failed);
            }
        } catch (Throwable e) {
            throw new IllegalStateException("raise(SIGSTOP) failed", e);
        }
        String head = SignedHttp.readStatus(socket);
        String[] statusLine = head.split(" ", 3);
        int status = Integer.parseInt(statusLine[1]);
        return (status / 100 == 2 ? "OK" : "FAIL") + " status=" + status + " resumed=" + what.replace(' ', ',');
    }

    // ------------------------------------------------------------------ answers

    private String describe(HttpResponse<byte[]> r, boolean withBody) {
        last = r;
        StringBuilder b = new StringBuilder(r.statusCode() / 100 == 2 ? "OK" : "FAIL");
        b.append(" status=").append(r.statusCode());
        // an S3 error is a small XML document; an object body is never turned into text
        Matcher m = CODE.matcher(r.body().length > 65536 ? "" : new String(r.body(), StandardCharsets.UTF_8));
        if (m.find()) {
            b.append(" code=").append(m.group(1));
        }
        for (String h : new String[] {"ETag", "Content-Range", "x-amz-rdma-reply", "x-amz-rdma-bytes-transferred",
            "x-amz-mp-parts-count", "x-amz-checksum-crc32c"}) {
            r.headers().firstValue(h).ifPresent(v -> b.append(' ').append(h.toLowerCase(java.util.Locale.ROOT))
                    .append('=').append(v.replace(' ', '_').replace("\"", "")));
        }
        if (withBody) {
            b.append(" length=").append(r.body().length).append(" bodycrc=").append(crc(MemorySegment.ofArray(r.body()),
                    r.body().length));
        }
        return b.toString();
    }

    public static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** CRC32C of {@code n} bytes, base64 as {@code x-amz-checksum-crc32c} prints it. */
    public static String crc(MemorySegment s, long n) {
        CRC32C c = new CRC32C();
        c.update(s.asSlice(0, n).asByteBuffer());
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
    }
}
