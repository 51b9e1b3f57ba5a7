package org.objrdma.s3;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.client.RcClient;
import org.objrdma.client.RcOutcome;
import org.objrdma.client.RcTransfer;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.session.internal.MonotonicClock;
import org.objrdma.session.internal.RandomSource;
import org.objrdma.session.internal.SessionCore;
import org.objrdma.session.internal.SessionSettings;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;

/**
 * The gateway with both RDMA paths on real parts: the session core, the staging pool, a TCP transport for the
 * server and another for the client, the cuObject facade, an in-memory store; and the Java client
 * ({@link CuObjAgent}, {@link RcClient}) driving signed requests through the protocol layer.
 */
final class RdmaFixture implements AutoCloseable {

    static final String OTHER_AK = "AKIAOTHERPRINCIPAL01";
    static final String OTHER_SECRET = "otherSecretKeyForTheSecondPrincipal00000";

    final TcpTransport serverTransport;
    final TcpTransport clientTransport;
    final BufferPool pool;
    final SessionCore core;
    final CuObjServer cuObj;
    final EmbeddedStore store;
    final S3Gateway gateway;
    final Arena arena = Arena.ofShared();
    /** The facade's shared key of the cuObjServer-compatible calls, or null (per-principal mode). */
    final byte[] sharedAgentKey;
    /** The client agent of the default principal ({@link SdkSigner#AK}), keyed with its own agent key. */
    final CuObjAgent agent;
    final RcClient rc;

    /** Every session end the core reported, in order. */
    final List<org.objrdma.api.session.TerminalEvent> ended = new java.util.concurrent.CopyOnWriteArrayList<>();

    RdmaFixture(RdmaSettings settings, boolean withRdma) throws Exception {
        this(settings, withRdma, b -> { });
    }

    RdmaFixture(RdmaSettings settings, boolean withRdma,
            java.util.function.Consumer<SessionSettings.Builder> sessionSettings) throws Exception {
        this(settings, withRdma, sessionSettings, null, EmbeddedStores::inMemory);
    }

    /** {@code sharedAgentKey} null: the facade has no {@code agent.key} (per-principal mode). */
    RdmaFixture(RdmaSettings settings, boolean withRdma,
            java.util.function.Consumer<SessionSettings.Builder> sessionSettings, byte[] sharedAgentKey) throws Exception {
        this(settings, withRdma, sessionSettings, sharedAgentKey, EmbeddedStores::inMemory);
    }

    /** How a test opens the gateway's store (fault tests: a file store on a small file system, or a wrapper). */
    interface StoreOpener {
        EmbeddedStore open(Map<String, String> credentials) throws Exception;
    }

    RdmaFixture(RdmaSettings settings, boolean withRdma,
            java.util.function.Consumer<SessionSettings.Builder> sessionSettings, StoreOpener storeOpener)
            throws Exception {
        this(settings, withRdma, sessionSettings, null, storeOpener);
    }

    RdmaFixture(RdmaSettings settings, boolean withRdma,
            java.util.function.Consumer<SessionSettings.Builder> sessionSettings, byte[] sharedAgentKey,
            StoreOpener storeOpener) throws Exception {
        this(settings, withRdma, sessionSettings, sharedAgentKey, storeOpener, StagingSettings.defaults());
    }

    /** {@code staging}: the pool's settings (a small {@code max.buffer.size} makes "larger than a buffer" cheap). */
    RdmaFixture(RdmaSettings settings, boolean withRdma,
            java.util.function.Consumer<SessionSettings.Builder> sessionSettings, byte[] sharedAgentKey,
            StoreOpener storeOpener, StagingSettings staging) throws Exception {
        this.sharedAgentKey = sharedAgentKey;
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(staging, serverTransport, () -> Telemetry.NOOP);
        SessionSettings.Builder b = SessionSettings.builder().execTimeoutMs(10_000).prepTimeoutMs(5_000)
                .allowAddresses("127.0.0.0/8"); // the client endpoints are on loopback
        sessionSettings.accept(b);
        core = new SessionCore(b.build(), MonotonicClock.system(), RandomSource.secure());
        core.addTerminalListener(ended::add);
        core.useTransport(serverTransport);
        core.useStagingPool(pool);
        core.startReaper();
        CuObjRDMATunable t = new CuObjRDMATunable();
        if (sharedAgentKey != null) {
            t.setAgentKey(sharedAgentKey);
        }
        t.setAllowAddresses("127.0.0.0/8"); // the client agent listens on loopback
        cuObj = new CuObjServer(serverTransport, "127.0.0.1", 0, CuObj.CUOBJ_PROTO_RDMA_DC_V1, t);
        store = storeOpener.open(Map.of(SdkSigner.AK, SdkSigner.SECRET, OTHER_AK, OTHER_SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(),
                withRdma ? RdmaServices.of(core, pool, cuObj, settings) : RdmaServices.NONE);
        agent = CuObjAgent.openForPrincipal(clientTransport, SdkSigner.SECRET);
        rc = new RcClient(clientTransport, Duration.ofSeconds(10));
    }

    TestResponse call(TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        return out;
    }

    TestResponse call(String method, String path, String query, byte[] body, String... headers) throws IOException {
        return call(SdkSigner.sign(method, path, query, body, Body.UNSIGNED, Instant.now(), headers));
    }

    /** Registered client memory of {@code size} bytes (at least 1). */
    ClientMemory memory(long size) throws Exception {
        MemorySegment seg = arena.allocate(Math.max(1, size), 4096);
        return ClientMemory.register(clientTransport, seg);
    }

    // ------------------------------------------------------------------ hipobj-rc-v2, the client's HTTP side

    /** A PREPARE's answer and the transfer it belongs to. */
    record Prepared(TestResponse response, RcTransfer transfer, PrepareResponse prepare) {
        SessionId session() {
            return prepare.sessionId();
        }
    }

    static String[] rcHeaders(String... more) {
        List<String> h = new ArrayList<>(List.of(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL));
        h.addAll(List.of(more));
        return h.toArray(String[]::new);
    }

    Prepared prepare(Op op, ClientMemory mem, String target, long offset, long size) throws Exception {
        RcTransfer tr = rc.begin(op, mem, 0, size);
        TestResponse r = call("POST", "/.hipobj-rc/prepare", "", new byte[0], rcHeaders(
                RdmaHeaders.OP, op.name(), RdmaHeaders.TARGET, target, RdmaHeaders.SIZE, String.valueOf(size),
                RdmaHeaders.OFFSET, String.valueOf(offset), RdmaHeaders.PSN, Integer.toHexString(tr.psn()),
                RdmaHeaders.COOKIE, Integer.toHexString(tr.cookie()), RdmaHeaders.TOKEN, tr.token(),
                RdmaHeaders.CHANNEL_KEY, HexFormat.of().formatHex(tr.channelKey())));
        if (r.status != 200) {
            tr.close();
            return new Prepared(r, null, null);
        }
        return new Prepared(r, tr, toPrepareResponse(r, size));
    }

    static PrepareResponse toPrepareResponse(TestResponse r, long size) {
        String reply = r.header(RdmaHeaders.REPLY);
        RcToken token = RcToken.parse(reply.substring("200:".length())).value();
        byte[] key = HexFormat.of().parseHex(r.header(RdmaHeaders.CHANNEL_KEY));
        int psn = Integer.parseInt(r.header(RdmaHeaders.PSN), 16);
        EndpointInfo server = RcTokenCodecs.decode(token, new RcTokenCodec.Context(psn, Mtu.MTU_4096, key)).value();
        RemoteRegion staging = new RemoteRegion(Long.parseUnsignedLong(r.header(RdmaHeaders.MR_ADDR), 16), size,
                (int) Long.parseLong(r.header(RdmaHeaders.MR_RKEY), 16));
        return new PrepareResponse(new SessionId(r.header(RdmaHeaders.SESSION)), server, staging);
    }

    TestResponse ready(String ak, String secret, Prepared p) throws IOException {
        long qpn = p.transfer.clientEndpoint().queueNumber();
        return call(SdkSigner.signAs(ak, secret, "127.0.0.1", "POST", "/.hipobj-rc/ready", "", new byte[0],
                Body.UNSIGNED, Instant.now(), rcHeaders(RdmaHeaders.SESSION, p.session().hex(),
                        RdmaHeaders.COOKIE, Integer.toHexString(p.transfer.cookie()), RdmaHeaders.QPN,
                        Long.toHexString(qpn))));
    }

    /** The client's data phase and READY; returns the READY answer, the outcome checked. */
    TestResponse run(Prepared p) throws Exception {
        CompletableFuture<RcOutcome> data = p.transfer.start(p.prepare);
        TestResponse ready = ready(SdkSigner.AK, SdkSigner.SECRET, p);
        RcOutcome outcome = data.get(20, TimeUnit.SECONDS);
        // strict: the TCP transport sends the acknowledgement of the client's WRITE_WITH_IMM before the server's
        // session closes the channel (it used to be lost to that teardown, RETRY_EXC_ERR after a 200)
        if (ready.status == 200 && !outcome.ok()) {
            throw new AssertionError("READY answered 200 but the client's data phase failed: " + outcome);
        }
        p.transfer.close();
        return ready;
    }

    TestResponse cancel(String ak, String secret, String session) throws IOException {
        return call(SdkSigner.signAs(ak, secret, "127.0.0.1", "POST", "/.hipobj-rc/cancel", "", new byte[0],
                Body.UNSIGNED, Instant.now(), rcHeaders(RdmaHeaders.SESSION, session)));
    }

    @Override
    public void close() {
        agent.close();
        core.shutdown(Duration.ofSeconds(2));
        cuObj.close();
        pool.close();
        store.close();
        clientTransport.close();
        serverTransport.close();
        arena.close();
    }
}
