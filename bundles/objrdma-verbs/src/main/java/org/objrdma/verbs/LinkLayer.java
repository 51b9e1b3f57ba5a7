package org.objrdma.verbs;

/** Link layer of a port: InfiniBand (addressed by LID) or Ethernet (RoCE, addressed by GID only). */
public enum LinkLayer {
    UNSPECIFIED(0), INFINIBAND(1), ETHERNET(2);

    private final int code;

    LinkLayer(int code) {
        this.code = code;
    }

    /** The {@code IBV_LINK_LAYER_*} value. */
    public int code() {
        return code;
    }

    /**
     * The link layer with verbs value {@code code}. Old drivers report 0 (unspecified), which verbs
     * treats as InfiniBand; this method keeps the distinction and leaves the choice to the caller.
     */
    public static LinkLayer fromCode(int code) {
        for (LinkLayer l : values()) {
            if (l.code == code) {
                return l;
            }
        }
        return UNSPECIFIED;
    }
}
