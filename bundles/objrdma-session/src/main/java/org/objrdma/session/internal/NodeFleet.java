package org.objrdma.session.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.objrdma.api.session.SessionId;

/**
 * This gateway's identity among the gateways in front of one store, and the others' advertised endpoints
 * (PID {@code org.objrdma.session}, {@value #NODE_ID} and {@value #NODES}).
 *
 * <p>A session id stays 32 lower-case hex digits (the hipobj-rc-v2 wire form, rc-session.md §1.4), but with a
 * node configured its first {@value #TAG_HEX} digits are the node's <em>tag</em> — the first 4 bytes of
 * SHA-256 of {@code "objrdma.node:" + node id} — and the other 96 bits stay random. Any node holding the same
 * {@code nodes} list derives every node's tag itself, so it can tell whose a session is without asking
 * anyone: there is no membership protocol and no shared state.
 */
public final class NodeFleet {
    public static final String NODE_ID = "node.id";
    public static final String NODES = "nodes";
    /** Hex digits of a session id that carry the owner's tag. */
    public static final int TAG_HEX = 8;

    /** No node configured: ids are 128 random bits, every id is local. */
    public static final NodeFleet NONE = new NodeFleet("", Map.of());

    private static final Pattern NODE_ID_SYNTAX = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");
    private static final HexFormat HEX = HexFormat.of();

    private final String nodeId;
    private final byte[] ownTag;
    /** tag (8 hex) → advertised endpoint, every node but this one. */
    private final Map<String, URI> others;

    private NodeFleet(String nodeId, Map<String, URI> others) {
        this.nodeId = nodeId;
        this.ownTag = nodeId.isEmpty() ? null : tagBytes(nodeId);
        this.others = others;
    }

    /**
     * The fleet of {@code nodeId} (empty: none) given {@code nodes}, {@code id=url} entries separated by commas
     * or white space (empty: this node alone).
     *
     * @throws IllegalArgumentException naming the property: a node id that is not 1–64 of
     *         {@code [A-Za-z0-9_.-]}; an entry without {@code =}; a URL that is not absolute http(s) with a host,
     *         or has a path other than "/", a query, a fragment or user info; a node listed twice; two node ids
     *         with the same tag; a {@code nodes} list without this node, or given without {@code node.id}
     */
    public static NodeFleet parse(String nodeId, String nodes) {
        String self = nodeId == null ? "" : nodeId.strip();
        String list = nodes == null ? "" : nodes.strip();
        if (self.isEmpty()) {
            if (!list.isEmpty()) {
                throw new IllegalArgumentException(NODES + " is set but " + NODE_ID + " is not: a node must know"
                        + " which of the listed nodes it is");
            }
            return NONE;
        }
        requireNodeId(NODE_ID, self);
        Map<String, URI> endpoints = new LinkedHashMap<>();
        for (String entry : list.split("[,\\s]+")) {
            if (entry.isEmpty()) {
                continue;
            }
            int eq = entry.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(NODES + ": '" + entry + "' is not id=url");
            }
            String id = entry.substring(0, eq);
            requireNodeId(NODES, id);
            if (endpoints.put(id, endpoint(id, entry.substring(eq + 1))) != null) {
                throw new IllegalArgumentException(NODES + ": node '" + id + "' is listed twice");
            }
        }
        if (!endpoints.isEmpty() && !endpoints.containsKey(self)) {
            throw new IllegalArgumentException(NODES + " does not list this node '" + self + "' (" + NODE_ID + ")");
        }
        Map<String, String> idByTag = new LinkedHashMap<>();
        Map<String, URI> others = new LinkedHashMap<>();
        for (Map.Entry<String, URI> e : endpoints.entrySet()) {
            String tag = tag(e.getKey());
            String clash = idByTag.put(tag, e.getKey());
            if (clash != null) {
                throw new IllegalArgumentException(NODES + ": nodes '" + clash + "' and '" + e.getKey()
                        + "' have the same session id tag " + tag + "; rename one");
            }
            if (!e.getKey().equals(self)) {
                others.put(tag, e.getValue());
            }
        }
        return new NodeFleet(self, Collections.unmodifiableMap(others));
    }

    private static void requireNodeId(String property, String id) {
        if (!NODE_ID_SYNTAX.matcher(id).matches()) {
            throw new IllegalArgumentException(property + ": node id '" + id
                    + "' must be 1 to 64 of A-Z a-z 0-9 _ . -");
        }
    }

    private static URI endpoint(String id, String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(NODES + ": the endpoint of '" + id + "' is not a URL: " + text, e);
        }
        String scheme = uri.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))) {
            throw new IllegalArgumentException(NODES + ": the endpoint of '" + id + "' must be http(s)://host[:port]"
                    + " with no path, query or user info, was " + text);
        }
        return URI.create(scheme.toLowerCase(java.util.Locale.ROOT) + "://" + uri.getRawAuthority());
    }

    /** The tag of {@code nodeId}: 8 lower-case hex digits. */
    public static String tag(String nodeId) {
        return HEX.formatHex(tagBytes(nodeId));
    }

    private static byte[] tagBytes(String nodeId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(("objrdma.node:" + nodeId).getBytes(StandardCharsets.UTF_8));
            return java.util.Arrays.copyOf(digest, TAG_HEX / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** This node's id, or empty. */
    public String nodeId() {
        return nodeId;
    }

    /** Writes this node's tag over the first four bytes of a fresh session id's random {@code bits}. */
    public void stamp(byte[] bits) {
        if (ownTag != null) {
            System.arraycopy(ownTag, 0, bits, 0, Math.min(ownTag.length, bits.length));
        }
    }

    /** The endpoint of the other node whose tag {@code id} carries; empty for this node's or an unknown tag. */
    public Optional<URI> foreignOwner(SessionId id) {
        return Optional.ofNullable(others.get(id.hex().substring(0, TAG_HEX)));
    }

    @Override
    public String toString() {
        return nodeId.isEmpty() ? "no node id" : "node " + nodeId + " (tag " + tag(nodeId) + "), " + others.size()
                + " other node(s)";
    }
}
