package org.objrdma.api.transport;

/** Why a transport call was refused synchronously. Completions carry {@link WcStatus} instead. */
public enum TransportError {
    /** The transport cannot work here (no device, no library); {@link Transport#unavailabilityCause()} says why. */
    UNAVAILABLE,
    /** An argument is malformed or of the wrong kind (heap segment, foreign endpoint type, bad bounds). */
    INVALID_ARGUMENT,
    /** The channel or region is not in a state that allows the call (e.g. a one-sided post before connect). */
    WRONG_STATE,
    /** A queue, key space or device limit is exhausted; retrying later may succeed. */
    RESOURCE_EXHAUSTED,
    /** The peer could not be reached or refused the connection. */
    CONNECT_FAILED,
    /** The peer refused the access key before any memory was touched. */
    AUTHENTICATION_FAILED,
    /** The operation did not finish within its deadline. */
    TIMEOUT,
    /** The channel, region or transport has been closed. */
    CLOSED,
    /** The device or operating system reported an error; the message carries its text. */
    IO
}
