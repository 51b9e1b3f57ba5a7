package org.objrdma.client.sdk;

import java.util.Locale;

/** How object bytes travel: one of the two S3-over-RDMA protocols, or plain HTTP. */
public enum RdmaProtocol {
    /** NVIDIA cuObject: a signed {@code x-amz-rdma-token} on the S3 request itself (cuobj.md §10). */
    CUOBJ,
    /** hipobj-rc-v2: {@code POST /.hipobj-rc/prepare} and {@code /ready} around a one-sided transfer. */
    RC,
    /** Plain S3 over HTTP: the body carries the bytes. */
    HTTP;

    /**
     * Parses {@code cuobj}, {@code rc} (or {@code hipobj-rc-v2}) and {@code http}, case-insensitively.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static RdmaProtocol parse(String text) {
        return switch (text == null ? "" : text.strip().toLowerCase(Locale.ROOT)) {
            case "cuobj", "cuobject" -> CUOBJ;
            case "rc", "hipobj-rc-v2" -> RC;
            case "http" -> HTTP;
            default -> throw new IllegalArgumentException("unknown protocol '" + text + "': use cuobj, rc or http");
        };
    }

    /** The name a user types. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
