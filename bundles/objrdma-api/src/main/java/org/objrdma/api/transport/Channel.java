package org.objrdma.api.transport;

import java.time.Duration;
import java.util.List;
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
 * <p>Errors: a failed request completes with a named {@link WcStatus}, moves the channel to
 * {@link ChannelState#ERROR} and every later request completes with {@link WcStatus#WR_FLUSH_ERR}.
 * Nothing half-applied is ever reported as success.
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
     * Closes the channel: outstanding requests complete with {@link WcStatus#WR_FLUSH_ERR} (batch
     * futures complete too), the peer sees the connection end. Idempotent; never throws.
     */
    @Override
    void close();
}
