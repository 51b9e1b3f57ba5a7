package org.objrdma.api.session;

import java.util.Objects;

/**
 * What a READY handler needs to re-authorize ({@code rc_session_info_resp}).
 *
 * @param op     GET or PUT
 * @param target the canonical target given at PREPARE
 */
public record SessionInfo(Op op, String target) {
    public SessionInfo {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
    }
}
