package org.objrdma.cuobj;

import java.util.Arrays;
import java.util.Objects;
import org.objrdma.api.PrincipalId;
import org.objrdma.wire.AgentKeys;

/**
 * Whom a transfer is for: the principal whose S3 request carried the descriptor, and that principal's agent key.
 * The server dials a client agent for this transfer only with this key, so a descriptor naming another
 * principal's lane reaches nothing (the agent refuses the key; the transfer returns {@code -EIO}).
 *
 * <p>The key is derived from the principal's S3 secret access key, which both sides know:
 * {@link AgentKeys#forPrincipal} (HMAC-SHA256 of a fixed label under the secret). It never prints.
 */
public final class CuObjPrincipal {
    private final PrincipalId id;
    private final byte[] agentKey;

    private CuObjPrincipal(PrincipalId id, byte[] agentKey) {
        this.id = id;
        this.agentKey = agentKey;
    }

    /**
     * The principal of an S3 credential: id {@code PrincipalId.fromCredentials(accessKeyId, secretAccessKey)} (as the routes compute it), key
     * {@code AgentKeys.forPrincipal(secretAccessKey)}.
     *
     * @throws IllegalArgumentException an empty access key id or secret
     */
    public static CuObjPrincipal fromCredential(String accessKeyId, String secretAccessKey) {
        if (accessKeyId == null || accessKeyId.isEmpty()) {
            throw new IllegalArgumentException("no access key id");
        }
        return new CuObjPrincipal(PrincipalId.fromCredentials(accessKeyId, secretAccessKey), AgentKeys.forPrincipal(secretAccessKey));
    }

    /**
     * A principal whose key the caller derived already (e.g. cached per credential).
     *
     * @throws IllegalArgumentException a key not {@value AgentKeys#MIN_LENGTH}..{@value AgentKeys#MAX_LENGTH} bytes
     */
    public static CuObjPrincipal of(PrincipalId id, byte[] agentKey) {
        Objects.requireNonNull(id, "id");
        if (agentKey == null || agentKey.length < AgentKeys.MIN_LENGTH || agentKey.length > AgentKeys.MAX_LENGTH) {
            throw new IllegalArgumentException("an agent key is " + AgentKeys.MIN_LENGTH + ".." + AgentKeys.MAX_LENGTH
                    + " bytes");
        }
        return new CuObjPrincipal(id, agentKey.clone());
    }

    public PrincipalId id() {
        return id;
    }

    /** The key itself, not a copy: the facade's hot path reads it; callers must not change it. */
    byte[] agentKey() {
        return agentKey;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CuObjPrincipal p && id.equals(p.id) && Arrays.equals(agentKey, p.agentKey);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "CuObjPrincipal[" + id + "]";
    }
}
