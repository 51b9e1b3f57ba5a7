package org.objrdma.wire;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;

/**
 * The {@link RcTokenCodec}s by endpoint kind and transport byte: {@link #encode} writes any endpoint whose kind has
 * a codec, {@link #decode} reads any token whose transport byte has one. Consumers never branch over the kinds.
 */
public final class RcTokenCodecs {

    /** Verbs RC queue pairs: transport byte 0x01. */
    public static final RcTokenCodec<EndpointInfo.Verbs> VERBS = new RcTokenCodec<>() {
        @Override public String kind() { return EndpointInfo.Verbs.KIND; }
        @Override public Class<EndpointInfo.Verbs> type() { return EndpointInfo.Verbs.class; }
        @Override public int transportByte() { return RcToken.TRANSPORT_RC; }
        @Override public RcToken encode(EndpointInfo.Verbs e, RemoteRegion region) { return RcToken.forVerbs(e, region); }
        @Override public TokenResult<EndpointInfo.Verbs> decode(RcToken t, Context c) {
            return t.verbsEndpoint(c.psn(), c.mtu());
        }
    };

    /** TCP transport channels: transport byte 0x80; the channel key comes from the context. */
    public static final RcTokenCodec<EndpointInfo.Tcp> TCP = new RcTokenCodec<>() {
        @Override public String kind() { return EndpointInfo.Tcp.KIND; }
        @Override public Class<EndpointInfo.Tcp> type() { return EndpointInfo.Tcp.class; }
        @Override public int transportByte() { return RcToken.TRANSPORT_TCP; }
        @Override public RcToken encode(EndpointInfo.Tcp e, RemoteRegion region) { return RcToken.forTcp(e, region); }
        @Override public TokenResult<EndpointInfo.Tcp> decode(RcToken t, Context c) {
            byte[] key = c.key();
            if (key == null || key.length < AgentKeys.MIN_LENGTH || key.length > AgentKeys.MAX_LENGTH) {
                return TokenResult.error(TokenError.BAD_KEY, "a TCP token needs the channel key (16..64 bytes) beside it");
            }
            return t.tcpEndpoint(key);
        }
    };

    private static final Map<String, RcTokenCodec<?>> BY_KIND = new ConcurrentHashMap<>();
    private static final Map<Integer, RcTokenCodec<?>> BY_BYTE = new ConcurrentHashMap<>();

    static {
        register(VERBS);
        register(TCP);
    }

    private RcTokenCodecs() {
    }

    /**
     * Adds the codec of a new kind; the returned handle removes it again.
     *
     * @throws IllegalStateException if its kind or transport byte already has a codec
     */
    public static synchronized AutoCloseable register(RcTokenCodec<?> codec) {
        if (BY_KIND.containsKey(codec.kind()) || BY_BYTE.containsKey(codec.transportByte())) {
            throw new IllegalStateException("kind " + codec.kind() + " or transport byte " + codec.transportByte()
                    + " already has a codec");
        }
        BY_KIND.put(codec.kind(), codec);
        BY_BYTE.put(codec.transportByte(), codec);
        return () -> {
            synchronized (RcTokenCodecs.class) {
                BY_KIND.remove(codec.kind(), codec);
                BY_BYTE.remove(codec.transportByte(), codec);
            }
        };
    }

    /** The token of {@code endpoint} (and optionally a region), or {@link TokenError#WRONG_TRANSPORT} for a kind without codec. */
    public static TokenResult<RcToken> encode(EndpointInfo endpoint, RemoteRegion region) {
        RcTokenCodec<?> codec = BY_KIND.get(endpoint.kind());
        if (codec == null) {
            return TokenResult.error(TokenError.WRONG_TRANSPORT, "no RC token form for endpoint kind " + endpoint.kind());
        }
        return TokenResult.ok(encodeWith(codec, endpoint, region));
    }

    private static <E extends EndpointInfo> RcToken encodeWith(RcTokenCodec<E> codec, EndpointInfo endpoint,
                                                               RemoteRegion region) {
        return codec.encode(codec.type().cast(endpoint), region);
    }

    /** The endpoint {@code token} names, or {@link TokenError#WRONG_TRANSPORT} for a transport byte without codec. */
    public static TokenResult<EndpointInfo> decode(RcToken token, RcTokenCodec.Context context) {
        RcTokenCodec<?> codec = BY_BYTE.get(token.transport());
        if (codec == null) {
            return TokenResult.error(TokenError.WRONG_TRANSPORT,
                    String.format("no endpoint kind for transport byte 0x%02x", token.transport()));
        }
        return codec.decode(token, context).map(e -> (EndpointInfo) e);
    }
}
