package org.objrdma.api.transport;

import java.util.Set;

/**
 * What a memory region allows, named after {@code ibv_access_flags}; {@link #verbsFlag()} is the verbs bit.
 * Local read access is always granted, as in verbs.
 */
public enum Access {
    /** The local side may write into the region (RECV targets, READ destinations). */
    LOCAL_WRITE(0x1),
    /** A peer may RDMA WRITE into the region. Verbs requires {@link #LOCAL_WRITE} with it. */
    REMOTE_WRITE(0x2),
    /** A peer may RDMA READ from the region. */
    REMOTE_READ(0x4);

    private final int verbsFlag;

    Access(int verbsFlag) {
        this.verbsFlag = verbsFlag;
    }

    /** The {@code IBV_ACCESS_*} bit. */
    public int verbsFlag() {
        return verbsFlag;
    }

    /** The OR of the verbs bits of {@code access}. */
    public static int toVerbsFlags(Set<Access> access) {
        int flags = 0;
        for (Access a : access) {
            flags |= a.verbsFlag;
        }
        return flags;
    }
}
