package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.GidType;

/**
 * The source GID towards a peer, on the GID tables a RoCE port, an InfiniBand port and an old library show:
 * the peer's GID family picks the RoCE version (link-local → v1, IPv4-mapped → v2), the configured GID wins
 * when it fits, and nothing changes where types are unknown or the port is InfiniBand.
 */
class SourceGidTest {
    static final Gid LINK_LOCAL = gid("fe800000000000000002c90300abcdef");
    static final Gid LO = gid("00000000000000000000ffff7f000001");
    static final Gid ETH = gid("00000000000000000000ffffc0000202");
    static final Gid V6 = gid("fd000000000000000000000000000002");

    static Gid gid(String hex) {
        return new Gid(Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
    }

    /** A RoCE port's layout: each GID as v1 then v2 (0/1 link-local, 2/3 127.0.0.1, 4/5 192.0.2.2, 6/7 fd00::2). */
    record Table(List<VerbsDevice.IndexedGid> gids, Map<Integer, GidType> types) {
        static Table roce() {
            List<VerbsDevice.IndexedGid> gids = new ArrayList<>();
            Map<Integer, GidType> types = new HashMap<>();
            int i = 0;
            for (Gid g : List.of(LINK_LOCAL, LO, ETH, V6)) {
                for (GidType t : List.of(GidType.ROCE_V1, GidType.ROCE_V2)) {
                    gids.add(new VerbsDevice.IndexedGid(i, g));
                    types.put(i++, t);
                }
            }
            return new Table(gids, types);
        }

        int choose(int defaultIndex, Gid peer) {
            return SourceGid.choose(gids, types, defaultIndex, peer);
        }
    }

    @Test
    void aLinkLocalPeerGetsTheLinkLocalRoceV1Gid() {
        Table t = Table.roce();
        assertEquals(0, t.choose(0, LINK_LOCAL));
        assertEquals(0, t.choose(3, LINK_LOCAL), "configured v2 IPv4-mapped, peer link-local: v1 link-local");
        assertEquals(0, t.choose(5, gid("fe8000000000000000fc00fffe000001")), "another host's link-local GID");
    }

    @Test
    void anIpv4MappedPeerGetsAnIpv4MappedRoceV2Gid() {
        Table t = Table.roce();
        assertEquals(3, t.choose(0, LO), "the peer's own address on this host, v2");
        assertEquals(5, t.choose(0, ETH));
        assertEquals(5, t.choose(5, LO), "the configured v2 IPv4-mapped GID fits and is kept");
        assertEquals(3, t.choose(2, LO), "configured 127.0.0.1 as RoCE v1: the v2 twin");
        assertEquals(3, t.choose(0, gid("00000000000000000000ffffc6336407")), "a remote address: the first v2 one");
    }

    @Test
    void otherPeersAndLidRoutedPeersKeepTheConfiguredGid() {
        Table t = Table.roce();
        assertEquals(7, t.choose(0, V6), "an IPv6 peer: RoCE v2 of that family");
        assertEquals(4, t.choose(4, Gid.ZERO), "LID-routed: no GID to match");
    }

    @Test
    void withoutTypesOrOnInfinibandTheFamilyAloneDecides() {
        Table t = Table.roce();
        assertEquals(2, SourceGid.choose(t.gids(), Map.of(), 0, LO), "old library: first of the family");
        assertEquals(0, SourceGid.choose(t.gids(), Map.of(), 0, LINK_LOCAL));
        List<VerbsDevice.IndexedGid> ib = List.of(new VerbsDevice.IndexedGid(0, LINK_LOCAL));
        assertEquals(0, SourceGid.choose(ib, Map.of(0, GidType.IB), 0, LINK_LOCAL));
        assertEquals(0, SourceGid.choose(ib, Map.of(0, GidType.IB), 0, LO), "no such family on the port");
    }
}
