package org.objrdma.verbs.internal.transport.dc;

import java.util.Objects;
import org.objrdma.api.transport.Gid;

/**
 * Where a DC target's port is, as a cuObject descriptor names it: by GID (has_gid 1; RoCE, routed InfiniBand) or by
 * LID alone (has_gid 0; an InfiniBand subnet). The key of the address-handle cache: one AH per peer port, shared by
 * every DCT behind it.
 *
 * @param global true if {@code gid} is meaningful
 * @param gid    the port's GID, {@link Gid#ZERO} when not global
 * @param lid    the port's LID; 0 is allowed only with a GID
 */
public record DcPeer(boolean global, Gid gid, int lid) {
    public DcPeer {
        Objects.requireNonNull(gid, "gid");
        if ((lid & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("lid is 16 bits, was " + lid);
        }
        if (global && gid.equals(Gid.ZERO)) {
            throw new IllegalArgumentException("a global DC peer needs a GID, not ::");
        }
        if (!global && lid == 0) {
            throw new IllegalArgumentException("a DC peer without a GID needs a LID (has_gid 0 and lid 0 name nothing)");
        }
        if (!global && !gid.equals(Gid.ZERO)) {
            throw new IllegalArgumentException("a DC peer without a GID must carry the zero GID");
        }
    }
}
