package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;

/** One token codec per endpoint kind, found without branching; a new kind plugs in without a change here. */
class RcTokenCodecsTest {
    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_00ab_cdefL);

    /** A DC target: the kind a future transport would add. */
    record Dc(int dctn, Gid gid, int lid) implements EndpointInfo {
        @Override public String kind() { return "verbs-dc"; }
        @Override public long queueNumber() { return dctn; }
        @Override public long maxQueueNumber() { return 0xFF_FFFF; }
        @Override public Dc withQueue(long q, int psn) { return new Dc((int) q, gid, lid); }
    }

    static final RcTokenCodec<Dc> DC = new RcTokenCodec<>() {
        @Override public String kind() { return "verbs-dc"; }
        @Override public Class<Dc> type() { return Dc.class; }
        @Override public int transportByte() { return RcToken.TRANSPORT_DC; }
        @Override public RcToken encode(Dc e, RemoteRegion r) {
            return new RcToken(RcToken.TRANSPORT_DC, e.dctn(), e.gid(), r.rkey(), r.address(), r.length(), 1, e.lid());
        }
        @Override public TokenResult<Dc> decode(RcToken t, Context c) {
            return TokenResult.ok(new Dc((int) t.qpNum(), t.gid(), t.lid()));
        }
    };

    @Test
    void theBuiltInKindsRoundTripThroughTheRegistry() {
        RcTokenCodec.Context ctx = new RcTokenCodec.Context(0x42, Mtu.MTU_4096, AgentKeys.generate());
        EndpointInfo verbs = new EndpointInfo.Verbs(0x1234, 0x42, GID, 7, 1, Mtu.MTU_4096);
        RcToken vt = RcTokenCodecs.encode(verbs, new RemoteRegion(0x1000, 64, 5)).value();
        assertEquals(RcToken.TRANSPORT_RC, vt.transport());
        assertEquals(verbs, RcTokenCodecs.decode(RcToken.parse(vt.format()).value(), ctx).value());

        EndpointInfo tcp = new EndpointInfo.Tcp(new InetSocketAddress("10.1.2.3", 45000), 77, ctx.key());
        RcToken tt = RcTokenCodecs.encode(tcp, null).value();
        assertEquals(RcToken.TRANSPORT_TCP, tt.transport());
        assertEquals(tcp, RcTokenCodecs.decode(tt, ctx).value());
        assertEquals(TokenError.BAD_KEY,
                RcTokenCodecs.decode(tt, new RcTokenCodec.Context(1, Mtu.MTU_1024, null)).error());
    }

    @Test
    void aNewKindRegistersItsCodec() throws Exception {
        Dc dc = new Dc(9, GID, 3);
        assertEquals(TokenError.WRONG_TRANSPORT, RcTokenCodecs.encode(dc, null).error(), "no codec yet");
        try (AutoCloseable registration = RcTokenCodecs.register(DC)) {
            RcToken t = RcTokenCodecs.encode(dc, new RemoteRegion(0, 0, 0)).value();
            assertEquals(RcToken.TRANSPORT_DC, t.transport());
            assertEquals(dc, RcTokenCodecs.decode(RcToken.parse(t.format()).value(),
                    new RcTokenCodec.Context(1, Mtu.MTU_1024, null)).value());
            assertThrows(IllegalStateException.class, () -> RcTokenCodecs.register(DC), "one codec per kind");
        }
        assertEquals(TokenError.WRONG_TRANSPORT, RcTokenCodecs.encode(dc, null).error(), "unregistered again");
        RcToken unknown = new RcToken(0x42, 1, GID, 0, 0, 0, 1, 1);
        assertEquals(TokenError.WRONG_TRANSPORT,
                RcTokenCodecs.decode(unknown, new RcTokenCodec.Context(1, Mtu.MTU_1024, null)).error());
    }
}
