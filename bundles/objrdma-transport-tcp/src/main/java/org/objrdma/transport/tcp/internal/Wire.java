package org.objrdma.transport.tcp.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The wire format of the TCP transport, big-endian throughout.
 *
 * <p><b>Handshake</b> (dialer = the side whose {@code connect} opens the socket, agent = the listening side),
 * mutual: both sides prove the target channel's access key.
 * <pre>
 * agent  → dialer  CHALLENGE  magic:4 version:2 agentNonce:32
 * dialer → agent   HELLO      magic:4 version:2 targetChannel:8 dialerNonce:32 dialerMac:32
 *                             family:1 address:4|16 port:2 dialerChannel:8
 * agent  → dialer  REPLY      magic:4 code:1 [agentMac:32 when code is OK]
 * </pre>
 * Both MACs are HMAC-SHA256 with the target channel's key over the whole transcript: {@code "objrdma-tcp/2"},
 * the prover's role, both nonces, and both ends with their roles (the agent's advertised address, port and
 * the target channel; the dialer's advertised address, port and channel) — see {@link #proof}. So the key
 * never crosses the wire; a recorded handshake cannot be replayed (fresh nonces); a relay that forwards a real
 * agent's challenge to a dialer that dialed the relay fails, because the dialer's MAC names the relay's
 * address as the agent; and one side's proof is never the other's (the role is in the MAC), so nothing can be
 * reflected. The agent verifies the dialer first and only then proves itself; the dialer starts its
 * connection (and so serves no request of the agent's side) only after the agent's MAC checked out.
 *
 * <p><b>Frames</b> after the handshake: a 40-byte header, then for the data types {@code length} payload bytes.
 * <pre>
 * type:1 op:1 status:2 immediate:4 seq:8 remoteAddress:8 length:8 rkey:4 flags:4
 * </pre>
 * REQUEST (op, seq, remoteAddress, rkey, length = total payload, immediate, flags) opens a request;
 * REQUEST_DATA (seq, length) carries up to one frame of a WRITE/SEND payload; RESPONSE_DATA (seq, length)
 * one frame of a READ response; ACK (seq, status) ends a request at the requester; PING keeps an idle
 * connection alive. Each side sends at most one payload stream at a time, so payload frames of one
 * request arrive in order; control frames may come between them.
 */
final class Wire {
    static final int HEADER_BYTES = 40;

    static final byte REQUEST = 1;
    static final byte REQUEST_DATA = 2;
    static final byte RESPONSE_DATA = 3;
    static final byte ACK = 4;
    static final byte PING = 5;

    /** Header flag: the request carries an immediate value. */
    static final int FLAG_IMMEDIATE = 1;

    static final int MAGIC = 0x4F525443; // "ORTC"
    static final short VERSION = 2;
    static final int NONCE_BYTES = 32;
    static final int MAC_BYTES = 32;
    static final int CHALLENGE_BYTES = 4 + 2 + NONCE_BYTES;
    /** HELLO up to and including the address family byte. */
    static final int HELLO_FIXED_BYTES = 4 + 2 + 8 + NONCE_BYTES + MAC_BYTES + 1;
    static final int REPLY_BYTES = 5;

    static final byte REPLY_OK = 0;
    static final byte REPLY_AUTH_REFUSED = 1;
    /** Both sides dialed each other; the agent's side dials on, the dialer waits for that connection. */
    static final byte REPLY_CROSSED = 2;
    /** The channel exists but is connected, closing or dialing someone else. */
    static final byte REPLY_BUSY = 3;
    static final byte REPLY_BAD_HELLO = 4;

    /** Role bytes of the transcript. */
    static final byte ROLE_DIALER = 1;
    static final byte ROLE_AGENT = 2;

    private static final byte[] MAC_CONTEXT = "objrdma-tcp/2".getBytes(StandardCharsets.US_ASCII);

    private Wire() {
    }

    /** Writes one header into {@code b} at positions 0..39 and flips it for writing. */
    static void header(ByteBuffer b, byte type, int op, int status, int immediate, long seq, long remoteAddress,
                       long length, int rkey, int flags) {
        b.clear();
        b.put(type).put((byte) op).putShort((short) status).putInt(immediate).putLong(seq)
                .putLong(remoteAddress).putLong(length).putInt(rkey).putInt(flags);
        b.flip();
    }

    static byte type(ByteBuffer h) {
        return h.get(0);
    }

    static int op(ByteBuffer h) {
        return h.get(1);
    }

    static int status(ByteBuffer h) {
        return h.getShort(2);
    }

    static int immediate(ByteBuffer h) {
        return h.getInt(4);
    }

    static long seq(ByteBuffer h) {
        return h.getLong(8);
    }

    static long remoteAddress(ByteBuffer h) {
        return h.getLong(16);
    }

    static long length(ByteBuffer h) {
        return h.getLong(24);
    }

    static int rkey(ByteBuffer h) {
        return h.getInt(32);
    }

    static int flags(ByteBuffer h) {
        return h.getInt(36);
    }

    /**
     * What {@code prover} ({@link #ROLE_DIALER} or {@link #ROLE_AGENT}) sends to prove {@code key}: the MAC of the
     * whole transcript, both nonces and both ends with their roles.
     */
    static byte[] proof(byte[] key, byte prover, byte[] agentNonce, byte[] dialerNonce, PeerIdentity agent,
                        PeerIdentity dialer) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(MAC_CONTEXT);
            mac.update(prover);
            mac.update(agentNonce);
            mac.update(dialerNonce);
            mac.update(end(ROLE_AGENT, agent));
            mac.update(end(ROLE_DIALER, dialer));
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JDK", e);
        }
    }

    /** role:1 family:1 address:4|16 port:2 channel:8 */
    private static byte[] end(byte role, PeerIdentity who) {
        byte[] addr = who.address().getAddress() == null ? new byte[0] : who.address().getAddress().getAddress();
        return ByteBuffer.allocate(1 + 1 + addr.length + 2 + 8).put(role).put((byte) addr.length).put(addr)
                .putShort((short) who.address().getPort()).putLong(who.channelId()).array();
    }
}
