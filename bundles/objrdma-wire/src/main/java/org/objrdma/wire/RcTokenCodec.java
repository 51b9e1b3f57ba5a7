package org.objrdma.wire;

import java.util.Objects;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;

/**
 * The 88-hex hipobj-rc-v2 token form of one {@link EndpointInfo#kind() kind} of endpoint: which transport byte
 * it writes and how the fields map. One codec per kind; {@link RcTokenCodecs} finds them. The built-in ones are
 * {@link RcTokenCodecs#VERBS} (RC, 0x01) and {@link RcTokenCodecs#TCP} (objrdma's 0x80); a new transport registers
 * its own with {@link RcTokenCodecs#register}, with no change to this package or to the API.
 *
 * @param <E> the endpoint type of the kind
 */
public interface RcTokenCodec<E extends EndpointInfo> {

    /** What hipobj-rc-v2 carries beside the token and a codec may need to rebuild an endpoint. */
    record Context(int psn, Mtu mtu, byte[] key) {
        public Context {
            Objects.requireNonNull(mtu, "mtu");
            key = key == null ? null : key.clone();
        }

        /** A copy of the key, or null. */
        @Override
        public byte[] key() {
            return key == null ? null : key.clone();
        }
    }

    /** The endpoint kind this codec writes ({@link EndpointInfo#kind()}). */
    String kind();

    /** The endpoint type of the kind. */
    Class<E> type();

    /** The token's transport byte for this kind. */
    int transportByte();

    /**
     * The token of {@code endpoint} and (optionally, else zeros) a region.
     *
     * @throws IllegalArgumentException if the endpoint cannot be written in the form (a programming error)
     */
    RcToken encode(E endpoint, RemoteRegion region);

    /** The endpoint a token of {@link #transportByte()} names, or a named refusal; never throws on bad tokens. */
    TokenResult<E> decode(RcToken token, Context context);
}
