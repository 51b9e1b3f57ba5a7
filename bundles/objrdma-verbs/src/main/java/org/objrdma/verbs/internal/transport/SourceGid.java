package org.objrdma.verbs.internal.transport;

import java.util.List;
import java.util.Map;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.GidType;

/**
 * Which local GID a queue pair uses as its source towards a peer GID.
 *
 * <p>On RoCE both ends of a connection must speak the same framing: a peer that names a link-local GID (as
 * hipObject's client does with GID index 0) talks RoCE v1, a peer that names an IPv4-mapped GID
 * ({@code ::ffff:a.b.c.d}, as cuObject and elbencho's clients do) talks RoCE v2. A port lists each of its GIDs
 * in both types, so the family of the peer's GID picks the type, and the configured source GID
 * ({@code gid.index} / {@code gid.prefix}) is kept whenever it already fits. On InfiniBand every GID has
 * type IB and one family, so the configured one is always kept.
 */
final class SourceGid {
    private SourceGid() {
    }

    /** The address family of a GID, as far as the choice of a source GID cares. */
    enum Family {
        LINK_LOCAL, IPV4_MAPPED, OTHER;

        static Family of(Gid g) {
            byte[] b = g.toBytes();
            if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) {
                return LINK_LOCAL;
            }
            for (int i = 0; i < 10; i++) {
                if (b[i] != 0) {
                    return OTHER;
                }
            }
            return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff ? IPV4_MAPPED : OTHER;
        }

        /** The RoCE version a peer naming a GID of this family speaks. */
        GidType roceType() {
            return this == LINK_LOCAL ? GidType.ROCE_V1 : GidType.ROCE_V2;
        }
    }

    /**
     * The source GID index towards {@code peer}.
     *
     * @param gids         the port's filled GID slots
     * @param types        their types by index (empty when the library cannot tell)
     * @param defaultIndex the configured source GID index
     * @param peer         the GID the peer's endpoint names ({@link Gid#ZERO}: LID-routed, no choice)
     */
    static int choose(List<VerbsDevice.IndexedGid> gids, Map<Integer, GidType> types, int defaultIndex, Gid peer) {
        if (peer.equals(Gid.ZERO)) {
            return defaultIndex;
        }
        Family family = Family.of(peer);
        GidType wanted = family.roceType();
        boolean typed = types.values().stream().anyMatch(t -> t == GidType.ROCE_V1 || t == GidType.ROCE_V2);
        int exact = -1;       // the peer's own GID with the wanted type: the peer is on this host
        int fit = -1;         // the first slot of the family with the wanted type
        int sameFamily = -1;  // the first slot of the family, whatever its type
        for (VerbsDevice.IndexedGid g : gids) {
            if (Family.of(g.gid()) != family) {
                continue;
            }
            if (sameFamily < 0) {
                sameFamily = g.index();
            }
            if (typed && types.getOrDefault(g.index(), GidType.UNKNOWN) != wanted) {
                continue;
            }
            if (g.index() == defaultIndex) {
                return defaultIndex;  // the configured GID already fits
            }
            if (exact < 0 && g.gid().equals(peer)) {
                exact = g.index();
            }
            if (fit < 0) {
                fit = g.index();
            }
        }
        return exact >= 0 ? exact : fit >= 0 ? fit : sameFamily >= 0 ? sameFamily : defaultIndex;
    }
}
