package org.objrdma.wire;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.RemoteRegion;

/**
 * The cuObject RDMA descriptor: what {@code cuMemObjGetRDMAToken} produces and a cuObject server receives as
 * {@code rdma_descr}. 81 characters, seven hexadecimal fields separated by {@code :}:
 *
 * <pre>
 * raddr(16) : rsize(8) : rkey(8) : lid(4) : qp(6) : has_gid(1) : gid(32)
 * 0102030405060708:01020304:01020304:0102:010203:1:0102030405060708090a0b0c0d0e0f10
 * </pre>
 *
 * <p><b>Verbs (DC) meaning</b>: the client memory's base address, its size (32 bits), its rkey, the client
 * port's LID, the client's DC target number (24 bits), whether a GID follows, and the GID.
 *
 * <p><b>TCP meaning</b> (objrdma): the descriptor names the client's memory agent instead of a DC target.
 * <ul>
 *   <li>{@code gid} ← the agent's IP address as IPv6; an IPv4 address is written IPv4-mapped
 *       ({@code ::ffff:a.b.c.d}, as RoCE v2 does); {@code has_gid} = 1;</li>
 *   <li>{@code lid} ← the agent's TCP port (1..65535);</li>
 *   <li>{@code qp} ← the client channel's id on that agent ({@code EndpointInfo.Tcp.channelId}); ids above
 *       2^24 - 1 cannot be described;</li>
 *   <li>{@code raddr}, {@code rsize}, {@code rkey} ← the client region, as for verbs;</li>
 *   <li>the key the agent demands is the <em>agent key</em> both sides were configured with (the stand-in for
 *       cuObject's DC key, see {@link AgentKeys}); it never travels in the descriptor.</li>
 * </ul>
 * An IPv6 scope id (link-local {@code %eth0}) cannot be carried; agents must listen on routable addresses.
 *
 * <p><b>Parsing</b> ({@link #parse}) is strict about shape: exactly 81 characters, the separators in place, hex
 * digits of either case in every field, has_gid 0 or 1. It returns a {@link TokenResult} and never throws.
 * {@link #format()} writes lower case, so {@code parse(d.format()).value().equals(d)} for every descriptor
 * and {@code parse(s).value().format().equals(s.toLowerCase())} for every accepted string. The header forms
 * with the {@code :addr:size} suffix and a trailing {@code ;} are {@link CuObjTokenHeader}'s.
 *
 * @param remoteAddress field 1, raddr: the client region's base address
 * @param regionSize    field 2, rsize: the region's size, 0 .. 2^32 - 2
 * @param rkey          field 3: the region's remote key (32 bits)
 * @param lid           field 4: LID (verbs) or agent port (TCP), 0 .. 65535
 * @param targetNumber  field 5: DC target number (verbs) or agent channel id (TCP), 0 .. 2^24 - 1
 * @param hasGid        field 6: whether {@code gid} is meaningful
 * @param gid           field 7: GID (verbs) or agent address (TCP)
 */
public record CuObjDescriptor(long remoteAddress, long regionSize, int rkey, int lid, int targetNumber,
                              boolean hasGid, Gid gid) {

    /** Characters of a descriptor. */
    public static final int LENGTH = 81;
    /**
     * Largest region a descriptor can describe: rsize is 32 bits, and its all-ones value ({@code ffffffff}, C's
     * {@code -1}) is refused.
     */
    public static final long MAX_REGION_SIZE = 0xFFFF_FFFEL;
    private static final long RSIZE_ALL_ONES = 0xFFFF_FFFFL;
    /** Largest target number (channel id): 24 bits. */
    public static final int MAX_TARGET_NUMBER = 0xFF_FFFF;

    // field boundaries: [start, end) and the separator after each
    private static final int[] START = {0, 17, 26, 35, 40, 47, 49};
    private static final int[] END = {16, 25, 34, 39, 46, 48, 81};
    private static final String[] NAMES = {"raddr", "rsize", "rkey", "lid", "qp", "has_gid", "gid"};

    public CuObjDescriptor {
        if (regionSize < 0 || regionSize > RSIZE_ALL_ONES) {
            throw new IllegalArgumentException("rsize is 32 bits, was " + regionSize);
        }
        if ((lid & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("lid is 16 bits, was " + lid);
        }
        if ((targetNumber & ~MAX_TARGET_NUMBER) != 0) {
            throw new IllegalArgumentException("qp (DC target number) is 24 bits, was " + targetNumber);
        }
        Objects.requireNonNull(gid, "gid");
        Ranges.require(refusal(remoteAddress, regionSize, hasGid, gid));
    }

    /**
     * The checks after the shape: rsize not all ones ({@code ffffffff}, the C {@code -1}) and
     * {@code [raddr, raddr + rsize)} not wrapping ({@link TokenError#BAD_SIZE}); with has_gid 1 a GID that names a
     * host ({@link TokenError#UNSPECIFIED_GID}); with has_gid 0 an all-zero GID field ({@link TokenError#STRAY_GID}).
     */
    private static TokenResult<CuObjDescriptor> refusal(long raddr, long rsize, boolean hasGid, Gid gid) {
        if (rsize == RSIZE_ALL_ONES) {
            return TokenResult.error(TokenError.BAD_SIZE, "rsize is all ones (ffffffff)");
        }
        TokenResult<CuObjDescriptor> r = Ranges.range("the region", raddr, rsize);
        if (r != null) {
            return r;
        }
        if (hasGid) {
            return Ranges.gid("gid", gid);
        }
        if (!gid.equals(Gid.ZERO)) {
            return TokenResult.error(TokenError.STRAY_GID, "has_gid is 0 but the gid field is " + gid.toHex()
                    + ", not zeros");
        }
        return null;
    }

    /**
     * The descriptor of {@code [address, address + size)} of a region with {@code rkey} on the TCP memory agent
     * at {@code agent}, channel {@code channelId} (the mapping in the class comment).
     *
     * @throws IllegalArgumentException if the agent has no port or an unresolved address, the channel id does
     *         not fit 24 bits, or the size 32 bits
     */
    public static CuObjDescriptor forTcpAgent(InetSocketAddress agent, long channelId, long address, long size, int rkey) {
        Objects.requireNonNull(agent, "agent");
        InetAddress ip = agent.getAddress();
        if (ip == null || agent.getPort() == 0) {
            throw new IllegalArgumentException("the agent needs a resolved address and a port: " + agent);
        }
        if (channelId < 0 || channelId > MAX_TARGET_NUMBER) {
            throw new IllegalArgumentException("channel id " + channelId + " does not fit the 24-bit qp field");
        }
        return new CuObjDescriptor(address, size, rkey, agent.getPort(), (int) channelId, true, Addresses.gidOf(ip));
    }

    /**
     * Parses a bare descriptor (exactly {@value #LENGTH} characters, nothing before or after).
     * Checks, in order: not empty ({@link TokenError#EMPTY}); length ({@link TokenError#WRONG_LENGTH}); the six
     * separators ({@link TokenError#BAD_SEPARATOR}); hex digits in every field ({@link TokenError#NOT_HEX});
     * has_gid 0 or 1 ({@link TokenError#BAD_HAS_GID}); then {@link TokenError#BAD_SIZE} (rsize all ones, the region
     * wraps), {@link TokenError#UNSPECIFIED_GID} (has_gid 1 with {@code ::} or {@code ::ffff:0.0.0.0}) and
     * {@link TokenError#STRAY_GID} (has_gid 0 with a GID that is not zeros).
     */
    public static TokenResult<CuObjDescriptor> parse(CharSequence text) {
        if (text == null || text.isEmpty()) {
            return TokenResult.error(TokenError.EMPTY, "no descriptor");
        }
        if (text.length() != LENGTH) {
            return TokenResult.error(TokenError.WRONG_LENGTH,
                    "a cuObject descriptor is " + LENGTH + " characters, this one " + text.length());
        }
        return parseAt(text);
    }

    /** Parses the first {@value #LENGTH} characters of {@code text}, which has at least that many. */
    static TokenResult<CuObjDescriptor> parseAt(CharSequence text) {
        for (int f = 0; f < END.length - 1; f++) {
            if (text.charAt(END[f]) != ':') {
                return TokenResult.error(TokenError.BAD_SEPARATOR,
                        "expected ':' after field " + NAMES[f] + " at position " + END[f]);
            }
        }
        for (int f = 0; f < START.length; f++) {
            if (!Hex.isHex(text, START[f], END[f])) {
                return TokenResult.error(TokenError.NOT_HEX, "field " + NAMES[f] + " holds a character that is not"
                        + " a hex digit");
            }
        }
        int hasGid = Hex.digit(text.charAt(START[5]));
        if (hasGid > 1) {
            return TokenResult.error(TokenError.BAD_HAS_GID, "has_gid must be 0 or 1, was " + text.charAt(START[5]));
        }
        long raddr = Hex.value(text, START[0], END[0]);
        long rsize = Hex.value(text, START[1], END[1]);
        int rkey = (int) Hex.value(text, START[2], END[2]);
        int lid = (int) Hex.value(text, START[3], END[3]);
        int qp = (int) Hex.value(text, START[4], END[4]);
        long gidHigh = Hex.value(text, START[6], START[6] + 16);
        long gidLow = Hex.value(text, START[6] + 16, END[6]);
        Gid gid = new Gid(gidHigh, gidLow);
        TokenResult<CuObjDescriptor> refused = refusal(raddr, rsize, hasGid == 1, gid);
        if (refused != null) {
            return refused;
        }
        return TokenResult.ok(new CuObjDescriptor(raddr, rsize, rkey, lid, qp, hasGid == 1, gid));
    }

    /** The 81 lower-case characters. */
    public String format() {
        StringBuilder b = new StringBuilder(LENGTH);
        Hex.append(b, remoteAddress, 16);
        b.append(':');
        Hex.append(b, regionSize, 8);
        b.append(':');
        Hex.append(b, rkey, 8);
        b.append(':');
        Hex.append(b, lid, 4);
        b.append(':');
        Hex.append(b, targetNumber, 6);
        b.append(':').append(hasGid ? '1' : '0').append(':');
        Hex.append(b, gid.subnetPrefix(), 16);
        Hex.append(b, gid.interfaceId(), 16);
        return b.toString();
    }

    /** The client memory the descriptor describes. */
    public RemoteRegion remoteRegion() {
        return new RemoteRegion(remoteAddress, regionSize, rkey);
    }

    /** True if {@code [address, address + size)} lies inside the described region (no overflow). */
    public boolean covers(long address, long size) {
        return remoteRegion().contains(address, size);
    }

    /** True if the descriptor can name a TCP memory agent: it has a GID and a non-zero port. */
    public boolean isTcpAddressable() {
        return hasGid && lid != 0;
    }

    /** The agent's socket address under the TCP mapping, or {@link TokenError#NOT_TCP_ADDRESSABLE}. */
    public TokenResult<InetSocketAddress> tcpAgentAddress() {
        if (!isTcpAddressable()) {
            return TokenResult.error(TokenError.NOT_TCP_ADDRESSABLE, hasGid
                    ? "the descriptor's lid (the agent port) is 0"
                    : "the descriptor carries no GID (has_gid 0): an InfiniBand LID cannot be reached over TCP");
        }
        return TokenResult.ok(new InetSocketAddress(Addresses.addressOf(gid), lid));
    }

    /**
     * The TCP endpoint the descriptor names, with the agent key the server was configured with; or
     * {@link TokenError#NOT_TCP_ADDRESSABLE}.
     *
     * @throws IllegalArgumentException if {@code agentKey} is not 16..64 bytes (a configuration error)
     */
    public TokenResult<EndpointInfo.Tcp> tcpEndpoint(byte[] agentKey) {
        return tcpAgentAddress().map(a -> new EndpointInfo.Tcp(a, targetNumber, agentKey));
    }

    /** The lower-case form; the descriptor holds no secret. */
    @Override
    public String toString() {
        return format();
    }
}
