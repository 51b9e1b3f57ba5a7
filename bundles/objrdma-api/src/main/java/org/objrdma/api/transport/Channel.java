package org.objrdma.api.transport;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One connection to one peer: a verbs RC queue pair, or its software twin on the TCP transport.
 *
 * <p>Life: {@link Transport#openChannel} gives a channel in {@link ChannelState#INIT} whose
 * {@link #localEndpoint()} the control plane hands to the peer; {@link #connect} with the peer's
 * endpoint moves it to {@link ChannelState#CONNECTED}. Both sides call {@code connect} with each other's
 * endpoint, as RC requires. Receives may be posted before connecting.
 *
 * <p><b>Inbound accept.</b> On a transport that serves {@link Transport#FLOW_AGENT_ONE_SIDED} (TCP), a channel in
 * INIT also accepts one dialer without calling {@code connect} itself: a peer that calls {@code connect} with this
 * channel's {@link #localEndpoint()} and proves its access key becomes the channel's peer, the channel moves to
 * CONNECTED, and the dialer's one-sided requests reach this side's granted memory (the cuObject flow: the client's
 * memory agent channel is driven by the server). {@link #remoteEndpoint()} stays null, since this side connected
 * to nothing. One dialer per connection: another one is refused with {@link TransportError#CONNECT_FAILED} while
 * the channel is connected, a wrong key with {@link TransportError#AUTHENTICATION_FAILED} before any memory is
 * touched. On any other transport (verbs RC) a channel in INIT accepts no dialer: both sides must call
 * {@code connect}, and requests of a dialer whose peer never connected fail with a named status.
 *
 * <p><b>Access key.</b> {@link ChannelOptions#accessKey()} is the key a dialer must present (TCP: given, or
 * drawn at random when null; carried in the {@link EndpointInfo} the control plane hands out). A transport
 * without a connect handshake refuses a given key with {@link TransportError#INVALID_ARGUMENT}
 * ({@link Transport#openChannel}). {@code objrdma-transport-tck}'s {@code ChannelAcceptContractTest} checks both
 * halves against every transport.
 *
 * <p>Errors: a failed request completes with a named {@link WcStatus}, moves the channel to
 * {@link ChannelState#ERROR} and every later request completes with {@link WcStatus#WR_FLUSH_ERR}.
 * Nothing half-applied is ever reported as success. {@link #reset} brings an errored (or connected)
 * channel back to INIT with the same endpoint, so it can be connected again; {@link #close} ends it.
 *
 * <p>Threads: {@link #post} and {@link #poll} may be called from one thread at a time each;
 * {@link #submit} is safe from any thread. Completions of requests given to {@link #submit} go to
 * the returned future only, never to {@link #poll}. Futures complete on the transport's threads:
 * consumers hand heavy work on instead of running it in a callback.
 */
@ProviderType
public interface Channel extends AutoCloseable {

    /** Unique within the transport while the channel lives. */
    long id();

    /** Name of the transport that owns the channel. */
    String transportName();

    /** What the peer passes to its own {@link #connect}. */
    EndpointInfo localEndpoint();

    /** The endpoint given to {@link #connect}, or null before. */
    EndpointInfo remoteEndpoint();

    /** Current state. */
    ChannelState state();

    /**
     * Connects to the peer. Verbs: INIT → RTR → RTS; TCP: handshake with the peer's memory agent,
     * which checks the access key before any memory is touched.
     *
     * @throws TransportException INVALID_ARGUMENT for an endpoint of another transport,
     *         WRONG_STATE if not in INIT, CONNECT_FAILED, AUTHENTICATION_FAILED, TIMEOUT
     */
    void connect(EndpointInfo remote) throws TransportException;

    /**
     * Posts one request; its completion arrives through {@link #poll} (errors always; success only if
     * signaled).
     *
     * @throws TransportException WRONG_STATE (one-sided before connect), CLOSED (the channel or a local region
     *         of the request is closed), RESOURCE_EXHAUSTED (queue full), INVALID_ARGUMENT (region of another
     *         transport, too many SGEs)
     */
    void post(WorkRequest request) throws TransportException;

    /**
     * Moves up to {@code out.length} completions of {@link #post}ed requests into {@code out}; never blocks.
     *
     * @return how many were written, 0 if none is ready
     */
    int poll(Completion[] out);

    /**
     * Posts a batch, every request signaled, and completes when all have completed, when one failed
     * (the rest flush), or when {@code timeout} passed. The future never completes exceptionally for
     * transfer failures — those are statuses in the {@link BatchResult}; it does so only with a
     * {@link TransportException} when the batch could not be posted at all.
     */
    CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout);

    /**
     * Lets the peer of this channel, and no other, reach {@code [offset, offset + length)} of {@code region} with
     * {@code access}. See {@link MemoryGrant} for what the grant allows and when it ends. The region needs no
     * remote access of its own (register it local-only); a grant with {@link Access#REMOTE_WRITE} needs
     * {@link Access#LOCAL_WRITE} on the region, as a verbs memory window does.
     *
     * <p>Legal while the channel is CONNECTED. A transport may also allow it in INIT (the TCP transport does,
     * so that a side driven one-sidedly can hand out its grant with its endpoint); one that cannot says so
     * with WRONG_STATE. A reset or close of the channel revokes all its grants.
     *
     * @throws TransportException INVALID_ARGUMENT (region of another transport, slice outside the region or
     *         empty, access empty or not remote, REMOTE_WRITE on a region without LOCAL_WRITE), CLOSED (the
     *         channel or the region is closed), WRONG_STATE (the channel cannot bind now), RESOURCE_EXHAUSTED
     *         (too many grants), IO (the device refused the bind), UNAVAILABLE (the transport cannot grant;
     *         the default, so that test doubles written against 1.1 still compile — both real transports grant)
     */
    default MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        throw new TransportException(TransportError.UNAVAILABLE, "transport " + transportName() + " cannot grant");
    }

    /**
     * As {@link #grant}, except that {@link MemoryGrant#address()} need not be where the slice lies in this
     * process: a transport that can (TCP) answers an opaque base drawn at random for this grant and maps the
     * peer's addresses back to the slice, bounds-checked as any grant access. So a peer learns nothing of this
     * side's address space from the grant (a server answering a client's PREPARE, say). A transport whose device
     * needs the real address (verbs: a type-2 memory window is bound at the virtual address, and the software and
     * mlx5 devices objrdma drives have no zero-based windows) gives an ordinary grant: the default.
     *
     * @throws TransportException as {@link #grant}
     */
    default MemoryGrant grantOpaque(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        return grant(region, offset, length, access);
    }

    /**
     * Takes the channel back to {@link ChannelState#INIT} so that it can be connected again, keeping its
     * identity: {@link #id()} and {@link #localEndpoint()} return what they returned before, so an endpoint
     * the peer was already given stays valid. Verbs: the same queue pair goes to RESET and back to INIT with
     * the attributes it was opened with; TCP: the channel keeps its number and access key, and its memory
     * agent accepts an authenticated connection to it again.
     *
     * <p>When {@code reset} returns: every request that was outstanding has completed, with
     * {@link WcStatus#WR_FLUSH_ERR} unless it had already failed with a status of its own (posted ones wait in
     * {@link #poll}, and the futures of {@link #submit}ted batches are complete); the transport no longer
     * touches memory those requests named; every {@link MemoryGrant} of the channel is revoked; the connection
     * to the peer, if there was one, has ended; and
     * {@link #remoteEndpoint()} is null. Completions not yet polled stay where they were.
     *
     * <p>Only this side is reset. The peer either sees the connection end (its channel goes to
     * {@link ChannelState#ERROR}) or keeps a connection to a queue pair that no longer answers (its next request
     * fails). To talk again, the peer resets its channel too (or opens a new one), and both sides connect as
     * they did the first time.
     *
     * <p>Legal in INIT, where it changes nothing (receives posted before connecting stay posted), in CONNECTED
     * and in ERROR. It may wait for the transport's own threads to let go of the channel, so it must not be
     * called from a completion callback of this channel; a transport may refuse that with WRONG_STATE.
     *
     * @throws TransportException CLOSED if the channel is closed (also when it is closed while resetting);
     *         WRONG_STATE if called where the transport cannot wait for itself; IO if the device refused the
     *         state change, or TIMEOUT if the old connection did not stop in time — after those two the channel
     *         is in ERROR, and the owner may try again or close it
     */
    void reset() throws TransportException;

    /**
     * Closes the channel: outstanding requests complete with {@link WcStatus#WR_FLUSH_ERR} (batch
     * futures complete too), every {@link MemoryGrant} of the channel is revoked, the peer sees the
     * connection end. Idempotent; never throws.
     */
    @Override
    void close();
}
