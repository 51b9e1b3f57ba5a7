package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.GidType;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;

/**
 * A port's GID table as read at activation: every non-zero slot, and the type of each where the library tells
 * ({@code ibv_query_gid_ex}); read up to the port's table length, at most 256 slots.
 *
 * @param gids  the filled slots in index order
 * @param types the type of each filled slot by index; empty if the library cannot tell
 */
public record GidTable(List<VerbsDevice.IndexedGid> gids, Map<Integer, GidType> types) {
    static final int MAX_SLOTS = 256;

    public GidTable {
        gids = List.copyOf(gids);
        types = Map.copyOf(types);
    }

    public static GidTable read(VerbsLibrary library, MemorySegment ctx, int port, int tableLength)
            throws VerbsException {
        List<VerbsDevice.IndexedGid> gids = new ArrayList<>();
        Map<Integer, GidType> types = new HashMap<>();
        for (int i = 0; i < Math.min(tableLength, MAX_SLOTS); i++) {
            Gid gid = library.queryGid(ctx, port, i);
            if (!gid.equals(Gid.ZERO)) {
                gids.add(new VerbsDevice.IndexedGid(i, gid));
                final int index = i;
                library.queryGidEntry(ctx, port, i).ifPresent(e -> types.put(index, e.type()));
            }
        }
        return new GidTable(gids, types);
    }
}
