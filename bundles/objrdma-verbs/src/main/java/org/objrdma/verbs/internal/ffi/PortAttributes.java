package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

/** The parts of {@code struct ibv_port_attr} objrdma uses (all within the 48 compat bytes). */
public record PortAttributes(int state, int maxMtu, int activeMtu, int gidTableLength, long maxMessageSize,
                             int lid, int linkLayer) {

    private static long off(String field) {
        return IbvLayouts.offset(IbvLayouts.IBV_PORT_ATTR, field);
    }

    private static final long STATE = off("state");
    private static final long MAX_MTU = off("max_mtu");
    private static final long ACTIVE_MTU = off("active_mtu");
    private static final long GID_TBL_LEN = off("gid_tbl_len");
    private static final long MAX_MSG_SZ = off("max_msg_sz");
    private static final long LID = off("lid");
    private static final long LINK_LAYER = off("link_layer");

    static {
        if (LINK_LAYER >= IbvLayouts.COMPAT_PORT_ATTR_SIZE) {
            throw new ExceptionInInitializerError("port attributes read beyond what ibv_query_port fills");
        }
    }

    static PortAttributes read(MemorySegment a) {
        return new PortAttributes(a.get(JAVA_INT, STATE), a.get(JAVA_INT, MAX_MTU), a.get(JAVA_INT, ACTIVE_MTU),
                a.get(JAVA_INT, GID_TBL_LEN), Integer.toUnsignedLong(a.get(JAVA_INT, MAX_MSG_SZ)),
                VerbsLibrary.u16(a, LID), VerbsLibrary.u8(a, LINK_LAYER));
    }
}
