package org.objrdma.wire;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;

/**
 * The hipobj-rc-v2 token ({@code RdmaToken}): 44 bytes written as 88 hexadecimal characters, the
 * {@code x-amz-rdma-token} of a PREPARE and the token in {@code x-amz-rdma-reply: 200:<token>}.
 *
 * <p><b>Byte order.</b> The fields go on the wire in this order, which is not the struct's declaration order:
 * <pre>
 * transport u8 | qpNum u32 | gid 16 bytes | rkey u32 | remoteAddr u64 | length u64 | portNum u8 | lid u16
 * </pre>
 * Multi-byte integers are little-endian (the reference encoder copies them from memory on x86-64 and aarch64
 * hosts); the GID is its 16 raw bytes in network order. This is the order and the byte order hipObject's
 * encoder produces, so tokens interoperate with it.
 *
 * <p><b>Transport byte.</b> {@link #TRANSPORT_DC} 0x00, {@link #TRANSPORT_RC} 0x01, and objrdma's
 * {@link #TRANSPORT_TCP} 0x80 for the TCP transport, with the same mapping as {@link CuObjDescriptor}'s:
 * {@code gid} ← the memory agent's IP address (IPv4-mapped for IPv4), {@code lid} ← its TCP port,
 * {@code qpNum} ← the channel id on that agent, {@code portNum} = 1, and rkey / address / length of the
 * region. The channel's access key does not fit the token; the control plane carries it separately.
 *
 * <p>An all-zero token is the explicit loopback marker ({@link #isLoopbackMarker()}).
 *
 * @param transport     transport byte, 0..255
 * @param qpNum         queue pair number (verbs, 24 bits used) or channel id (TCP), 0 .. 2^32 - 1
 * @param gid           port GID, or the agent address for TCP
 * @param rkey          remote key of the region (32 bits)
 * @param remoteAddress region start address
 * @param length        region length
 * @param portNum       port number, 0..255
 * @param lid           LID (InfiniBand) or agent port (TCP), 0..65535
 */
public record RcToken(int transport, long qpNum, Gid gid, int rkey, long remoteAddress, long length,
                      int portNum, int lid) {

    /** Characters of a token. */
    public static final int LENGTH = 88;
    /** Transport byte of DC tokens. */
    public static final int TRANSPORT_DC = 0x00;
    /** Transport byte of RC tokens. */
    public static final int TRANSPORT_RC = 0x01;
    /** Transport byte objrdma uses for the TCP transport. */
    public static final int TRANSPORT_TCP = 0x80;
    /** The all-zero token. */
    public static final RcToken LOOPBACK_MARKER = new RcToken(0, 0, Gid.ZERO, 0, 0, 0, 0, 0);

    // hex positions of the fields
    private static final int QPN = 2;
    private static final int GID = 10;
    private static final int RKEY = 42;
    private static final int ADDR = 50;
    private static final int LEN = 66;
    private static final int PORT = 82;
    private static final int LID = 84;

    public RcToken {
        if ((transport & ~0xFF) != 0 || (portNum & ~0xFF) != 0 || (lid & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("transport and portNum are 8 bits, lid 16 bits");
        }
        if (qpNum < 0 || qpNum > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("qpNum is 32 bits, was " + qpNum);
        }
        Objects.requireNonNull(gid, "gid");
        Ranges.require(refusal(transport, qpNum, gid, rkey, remoteAddress, length, portNum, lid));
    }

    /**
     * The checks after the shape, skipped for the all-zero loopback marker: a GID that names a host
     * ({@link TokenError#UNSPECIFIED_GID}); a length that fits a Java {@code long} (a u64 with the top bit set,
     * all ones included, is refused instead of clamped to 0) and a region that neither wraps nor starts at all
     * ones ({@link TokenError#BAD_SIZE}).
     */
    private static TokenResult<RcToken> refusal(int transport, long qpNum, Gid gid, int rkey, long address,
                                                long length, int portNum, int lid) {
        if ((transport | qpNum | rkey | address | length | portNum | lid) == 0 && gid.equals(Gid.ZERO)) {
            return null; // the loopback marker
        }
        TokenResult<RcToken> r = Ranges.gid("the token's gid", gid);
        return r != null ? r : Ranges.range("the token's region", address, length);
    }

    /** The RC token of a verbs queue pair and (optionally, else zeros) a region. */
    public static RcToken forVerbs(EndpointInfo.Verbs endpoint, RemoteRegion region) {
        RemoteRegion r = region == null ? new RemoteRegion(0, 0, 0) : region;
        return new RcToken(TRANSPORT_RC, endpoint.qpn(), endpoint.gid(), r.rkey(), r.address(), r.length(),
                endpoint.port(), endpoint.lid());
    }

    /**
     * The TCP token of a channel of the TCP transport and (optionally, else zeros) a region.
     *
     * @throws IllegalArgumentException if the channel id does not fit 32 bits or the agent address is unresolved
     */
    public static RcToken forTcp(EndpointInfo.Tcp endpoint, RemoteRegion region) {
        InetSocketAddress a = endpoint.address();
        if (a.getAddress() == null) {
            throw new IllegalArgumentException("unresolved agent address " + a);
        }
        RemoteRegion r = region == null ? new RemoteRegion(0, 0, 0) : region;
        return new RcToken(TRANSPORT_TCP, endpoint.channelId(), Addresses.gidOf(a.getAddress()), r.rkey(),
                r.address(), r.length(), 1, a.getPort());
    }

    /**
     * Parses exactly {@value #LENGTH} hex digits (either case). Checks, in order: not empty
     * ({@link TokenError#EMPTY}), length ({@link TokenError#WRONG_LENGTH}), hex digits only
     * ({@link TokenError#NOT_HEX}); then, except for the all-zero loopback marker, {@link TokenError#UNSPECIFIED_GID}
     * and {@link TokenError#BAD_SIZE} (a length with the top bit set, a wrapping region). Every transport byte is
     * accepted; callers check {@link #transport()}.
     */
    public static TokenResult<RcToken> parse(CharSequence text) {
        if (text == null || text.isEmpty()) {
            return TokenResult.error(TokenError.EMPTY, "no token");
        }
        if (text.length() != LENGTH) {
            return TokenResult.error(TokenError.WRONG_LENGTH,
                    "an RC token is " + LENGTH + " hex characters, this one " + text.length());
        }
        return parseAt(text);
    }

    /** Parses the first {@value #LENGTH} characters of {@code text}, which has at least that many. */
    static TokenResult<RcToken> parseAt(CharSequence text) {
        if (!Hex.isHex(text, 0, LENGTH)) {
            return TokenResult.error(TokenError.NOT_HEX, "an RC token holds only hex digits");
        }
        int transport = Hex.byteAt(text, 0, 0);
        long qpNum = Hex.littleEndian(text, QPN, 4);
        Gid gid = new Gid(Hex.value(text, GID, GID + 16), Hex.value(text, GID + 16, RKEY));
        int rkey = (int) Hex.littleEndian(text, RKEY, 4);
        long addr = Hex.littleEndian(text, ADDR, 8);
        long len = Hex.littleEndian(text, LEN, 8);
        int port = Hex.byteAt(text, PORT, 0);
        int lid = (int) Hex.littleEndian(text, LID, 2);
        TokenResult<RcToken> refused = refusal(transport, qpNum, gid, rkey, addr, len, port, lid);
        return refused != null ? refused : TokenResult.ok(new RcToken(transport, qpNum, gid, rkey, addr, len, port, lid));
    }

    /** The 88 lower-case characters. */
    public String format() {
        StringBuilder b = new StringBuilder(LENGTH);
        Hex.append(b, transport, 2);
        Hex.appendLittleEndian(b, qpNum, 4);
        Hex.append(b, gid.subnetPrefix(), 16);
        Hex.append(b, gid.interfaceId(), 16);
        Hex.appendLittleEndian(b, rkey, 4);
        Hex.appendLittleEndian(b, remoteAddress, 8);
        Hex.appendLittleEndian(b, length, 8);
        Hex.append(b, portNum, 2);
        Hex.appendLittleEndian(b, lid, 2);
        return b.toString();
    }

    /** True for the all-zero token. */
    public boolean isLoopbackMarker() {
        return equals(LOOPBACK_MARKER);
    }

    /** The region the token names (zeros when it names none). */
    public RemoteRegion remoteRegion() {
        return new RemoteRegion(remoteAddress, length, rkey); // the constructor refused a negative length
    }

    /**
     * The TCP endpoint the token names, with the channel's access key from the control plane; refuses a token
     * of another transport ({@link TokenError#WRONG_TRANSPORT}) or with port 0 ({@link TokenError#NOT_TCP_ADDRESSABLE}).
     *
     * @throws IllegalArgumentException if {@code key} is not 16..64 bytes (a programming error)
     */
    public TokenResult<EndpointInfo.Tcp> tcpEndpoint(byte[] key) {
        if (transport != TRANSPORT_TCP) {
            return TokenResult.error(TokenError.WRONG_TRANSPORT,
                    String.format("transport byte 0x%02x is not TCP (0x80)", transport));
        }
        if (lid == 0) {
            return TokenResult.error(TokenError.NOT_TCP_ADDRESSABLE, "the token's lid (the agent port) is 0");
        }
        return TokenResult.ok(new EndpointInfo.Tcp(new InetSocketAddress(Addresses.addressOf(gid), lid), qpNum, key));
    }

    /**
     * The verbs endpoint the token names, completed with the PSN and MTU the control plane gives; refuses a token
     * of another transport ({@link TokenError#WRONG_TRANSPORT}), a QPN above 24 bits or port 0
     * ({@link TokenError#OUT_OF_RANGE}).
     */
    public TokenResult<EndpointInfo.Verbs> verbsEndpoint(int psn, Mtu mtu) {
        if (transport != TRANSPORT_RC) {
            return TokenResult.error(TokenError.WRONG_TRANSPORT,
                    String.format("transport byte 0x%02x is not RC (0x01)", transport));
        }
        if (qpNum > 0xFF_FFFF || portNum == 0) {
            return TokenResult.error(TokenError.OUT_OF_RANGE, "a verbs QPN is 24 bits and the port 1..255; token has qpn "
                    + qpNum + ", port " + portNum);
        }
        return TokenResult.ok(new EndpointInfo.Verbs((int) qpNum, psn, gid, lid, portNum, mtu));
    }

    @Override
    public String toString() {
        return format();
    }
}
