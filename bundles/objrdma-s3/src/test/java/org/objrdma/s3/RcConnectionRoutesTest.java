package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.s3.internal.RcConnectionTable;
import org.objrdma.s3.rdma.RcConnectionSettings;
import org.objrdma.s3.rdma.RcConnections;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.testsupport.FakeTransport;
import org.objrdma.wire.RcToken;

/**
 * The unsigned cuObject-over-RC routes ({@code /.s3rdma-rc/connect}, {@code disconnect}) at the protocol level, and
 * an {@code rc:} token on a signed object request, where no verbs transport is needed to answer: every refusal row
 * changes nothing. The transfers themselves run on the software verbs device in {@code RcConnectionsVerbsIT}.
 */
class RcConnectionRoutesTest {

    private EmbeddedStore store;
    private RcConnectionTable table;
    private S3Gateway gateway;

    @BeforeEach
    void setUp() {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        table = new RcConnectionTable(() -> null, RcConnectionSettings.DEFAULTS);
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), new RdmaServices(() -> null, () -> null,
                () -> null, RdmaSettings.DEFAULTS, table));
    }

    @AfterEach
    void tearDown() {
        table.close();
        store.close();
    }

    private static Gid gid() {
        try {
            return Gid.fromBytes(java.net.InetAddress.getByName("fe80::1").getAddress());
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static String clientToken(int transport) {
        RcToken t = RcToken.forVerbs(new EndpointInfo.Verbs(0x123, 0x456, gid(), 0, 1, Mtu.MTU_4096),
                null);
        return new RcToken(transport, t.qpNum(), t.gid(), 0, 0, 0, t.portNum(), t.lid()).format();
    }

    private TestResponse post(String route, String... headers) throws Exception {
        TestRequest r = new TestRequest("POST", "/.s3rdma-rc/" + route, "");
        for (int i = 0; i < headers.length; i += 2) {
            r.header(headers[i], headers[i + 1]);
        }
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        return out;
    }

    private static void refused(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    @Test
    void connectRefusesBadTokensAndPsnsUnsignedWithoutAQueuePair() throws Exception {
        String good = clientToken(RcToken.TRANSPORT_RC);
        refused(post("connect", "x-amz-rdma-token", "zz", "x-amz-rdma-psn", "00abcd"), 400, "InvalidRdmaRequest");
        refused(post("connect", "x-amz-rdma-psn", "00abcd"), 400, "InvalidRdmaRequest");
        refused(post("connect", "x-amz-rdma-token", clientToken(RcToken.TRANSPORT_DC), "x-amz-rdma-psn", "00abcd"), 400,
                "InvalidRdmaRequest");
        refused(post("connect", "x-amz-rdma-token", clientToken(RcToken.TRANSPORT_TCP), "x-amz-rdma-psn", "00abcd"), 400,
                "InvalidRdmaRequest");
        for (String psn : new String[] {"000000", "abcd", "1000000", "00abcx", "+00001"}) {
            refused(post("connect", "x-amz-rdma-token", good, "x-amz-rdma-psn", psn), 400, "InvalidRdmaRequest");
        }
        refused(post("connect", "x-amz-rdma-token", good), 400, "InvalidRdmaRequest");
        // a token naming memory: connect names a queue pair only
        RcToken t = RcToken.parse(good).value();
        String withMemory = new RcToken(1, t.qpNum(), t.gid(), 7, 0x1000, 4096, 1, 0).format();
        refused(post("connect", "x-amz-rdma-token", withMemory, "x-amz-rdma-psn", "00abcd"), 400, "InvalidRdmaRequest");
        // a body, a query: refused
        refused(post("connect", "x-amz-rdma-token", good, "x-amz-rdma-psn", "00abcd", "Content-Length", "3"), 400,
                "InvalidRdmaRequest");
        // a good request without a verbs transport: 503, unsigned all the same (never 403)
        refused(post("connect", "x-amz-rdma-token", good, "x-amz-rdma-psn", "00abcd"), 503, "RdmaServiceUnavailable");
        assertEquals(0, table.open());
    }

    @Test
    void routesTakePostOnlyAndNameTheirRoutes() throws Exception {
        TestResponse get = new TestResponse();
        gateway.handle(new TestRequest("GET", "/.s3rdma-rc/connect", ""), get);
        assertEquals(405, get.status, get.text());
        refused(post("elsewhere"), 404, "NoSuchRdmaRoute");
    }

    @Test
    void disconnectIsIdempotentAndChecksItsSession() throws Exception {
        assertEquals(204, post("disconnect", "x-amz-rdma-session", "0123456789abcdef0123456789ABCDEF").status);
        refused(post("disconnect", "x-amz-rdma-session", "0123"), 400, "InvalidRdmaRequest");
        refused(post("disconnect"), 400, "InvalidRdmaRequest");
    }

    @Test
    void withoutConnectionsTheRoutesAnswer503() throws Exception {
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), new RdmaServices(() -> null, () -> null,
                () -> null, RdmaSettings.DEFAULTS, RcConnections.NONE));
        refused(post("connect", "x-amz-rdma-token", clientToken(1), "x-amz-rdma-psn", "00abcd"), 503,
                "RdmaServiceUnavailable");
    }

    @Test
    void signedObjectRequestsWithAnRcTokenOfNoConnectionAre400AndMoveNothing() throws Exception {
        TestResponse mb = new TestResponse();
        gateway.handle(SdkSigner.sign("PUT", "/bkt", "", null, SdkSigner.Body.UNSIGNED, Instant.now()), mb);
        assertEquals(200, mb.status, mb.text());
        String[] tokens = {
            "rc:0123456789abcdef0123456789abcdef:00007f0000001000:00001000:0000abcd", // no such connection
            "rc:0123456789abcdef0123456789abcdef:00007f0000001000:00000000:0000abcd", // size 0
            "rc:0123:00007f0000001000:00001000:0000abcd", // short id
            "rc:0123456789abcdef0123456789abcdef:7f0000001000:00001000:0000abcd", // short address
            "rc:0123456789abcdef0123456789abcdef:00007f0000001000:1000:0000abcd", // size under 8 digits
            "rc:0123456789abcdef0123456789abcdef:ffffffffffffff00:00001000:0000abcd", // wraps
            "rc:0123456789abcdef0123456789abcdef:00007f0000001000:00001000:abcd", // short rkey
            "rc:0123456789abcdef0123456789abcdef:00007f0000001000:00001000:0000abcd:extra",
        };
        for (String token : tokens) {
            TestResponse put = new TestResponse();
            gateway.handle(SdkSigner.sign("PUT", "/bkt/k", "", null, SdkSigner.Body.UNSIGNED, Instant.now(),
                    "x-amz-rdma-token", token), put);
            refused(put, 400, "InvalidRDMAToken");
            TestResponse head = new TestResponse();
            gateway.handle(SdkSigner.sign("HEAD", "/bkt/k", "", null, SdkSigner.Body.UNSIGNED, Instant.now()), head);
            assertEquals(404, head.status, token);
        }
    }

    /**
     * The verbs transport going away ends its connections (queue pairs closed, their places freed) and leaves the
     * connections of another transport alone; an object request naming an ended connection is then 400.
     */
    @Test
    void connectionsOfATransportThatWentAwayEnd() throws Exception {
        FakeTransport first = FakeTransport.builder("verbs-a").level(TransportLevel.VERBS_RC)
                .channels(FakeTransport.ChannelMode.INERT).build();
        FakeTransport second = FakeTransport.builder("verbs-b").level(TransportLevel.VERBS_RC)
                .channels(FakeTransport.ChannelMode.INERT).build();
        Transport[] current = {first};
        try (RcConnectionTable own = new RcConnectionTable(() -> current[0], RcConnectionSettings.DEFAULTS)) {
            S3Gateway g = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), new RdmaServices(() -> null,
                    () -> null, () -> null, RdmaSettings.DEFAULTS, own));
            String token = clientToken(RcToken.TRANSPORT_RC);
            String[] ids = new String[3];
            for (int i = 0; i < 3; i++) {
                current[0] = i < 2 ? first : second;
                TestRequest r = new TestRequest("POST", "/.s3rdma-rc/connect", "");
                r.header("x-amz-rdma-token", token);
                r.header("x-amz-rdma-psn", "00abcd");
                TestResponse out = new TestResponse();
                g.handle(r, out);
                assertEquals(200, out.status, out.text());
                ids[i] = out.header("x-amz-rdma-session");
            }
            assertEquals(3, own.open());
            own.endAllOn(first);
            assertEquals(1, own.open(), "only the connection on the other transport is left");
            assertEquals(2, first.closed.get(), "both queue pairs of the transport that went away were closed");
            assertEquals(0, second.closed.get());
            TestResponse mb = new TestResponse();
            g.handle(SdkSigner.sign("PUT", "/bkt", "", null, SdkSigner.Body.UNSIGNED, Instant.now()), mb);
            assertEquals(200, mb.status, mb.text());
            TestResponse put = new TestResponse();
            g.handle(SdkSigner.sign("PUT", "/bkt/k", "", null, SdkSigner.Body.UNSIGNED, Instant.now(),
                    "x-amz-rdma-token", "rc:" + ids[0] + ":00007f0000001000:00001000:0000abcd"), put);
            refused(put, 400, "InvalidRDMAToken");
        }
        assertEquals(1, second.closed.get(), "closing the table ends the rest");
    }
}
