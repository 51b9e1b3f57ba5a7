package org.objrdma.client;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * The client's steps of hipobj-rc-v2, at transport level: {@link #begin} opens a channel (a queue pair on
 * verbs, a channel with a fresh random key on TCP) and draws the cookie and PSN; the returned
 * {@link RcTransfer} gives the 88-hex client token and the PREPARE / READY values, then runs the data phase
 * against the server's PREPARE answer. The HTTP requests are the caller's.
 *
 * <p>Thread safety: {@link #begin} may be called from any thread; each transfer belongs to one caller.
 */
public final class RcClient {
    /** Largest RC transfer: a session is at most 2^31 - 1 bytes. */
    public static final long MAX_SIZE = Integer.MAX_VALUE;

    private final Transport transport;
    private final Duration timeout;
    private final SecureRandom random = new SecureRandom();

    /**
     * A client on {@code transport}; {@code timeout} bounds each data phase (the wait for the server's
     * WRITE_WITH_IMM of a GET, the client's WRITE_WITH_IMM of a PUT) and each connect.
     */
    public RcClient(Transport transport, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    /**
     * Starts a transfer of {@code [offset, offset + size)} of {@code memory}. For GET the receive that takes the
     * server's WRITE_WITH_IMM is posted now, before the caller can send READY.
     *
     * @throws TransportException INVALID_ARGUMENT for memory of another transport or closed, a range outside it,
     *         a size of 0 or above 2^31 - 1; what opening a channel or posting the receive throws (nothing stays
     *         open then)
     */
    public RcTransfer begin(Op op, ClientMemory memory, long offset, long size) throws TransportException {
        Objects.requireNonNull(op, "op");
        if (memory == null || memory.transport() != transport || !memory.isOpen()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the memory must be open and registered with " + transport.name());
        }
        if (size <= 0 || size > MAX_SIZE || offset < 0 || offset > memory.size() || size > memory.size() - offset) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "range [" + offset + ", +" + size
                    + ") is empty, above 2^31 - 1 bytes or outside the " + memory.size() + " registered bytes");
        }
        int cookie;
        do {
            cookie = random.nextInt();
        } while (cookie == 0);
        int psn = 1 + random.nextInt(0xFF_FFFF); // TCP has no PSN, but PREPARE demands a 24-bit non-zero one
        ChannelOptions options = new ChannelOptions(4, 4, 1, timeout);
        return RcTransfer.start(op, memory, offset, (int) size, cookie, psn, transport.openChannel(options), timeout);
    }
}
