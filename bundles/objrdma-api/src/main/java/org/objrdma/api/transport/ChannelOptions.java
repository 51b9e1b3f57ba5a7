package org.objrdma.api.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * Sizes and limits of a new {@link Channel}.
 *
 * @param sendQueueDepth most send-queue requests outstanding at once
 * @param recvQueueDepth most receives posted at once
 * @param maxSge         most scatter-gather entries per request
 * @param connectTimeout how long {@link Channel#connect} may take
 * @param accessKey      the key a peer must present to connect to this channel, 16 to 64 bytes, when the
 *                       control plane hands out a key of its own (the cuObject flow, where a shared agent key
 *                       stands in for the DC key); null to let the transport choose. Part of the {@link Channel}
 *                       contract ("Access key"): a transport with a connect handshake (TCP) demands exactly this
 *                       key of every dialer and puts it in the channel's endpoint; a transport without one
 *                       (verbs RC) refuses a non-null key at {@link Transport#openChannel} with
 *                       {@link TransportError#INVALID_ARGUMENT} rather than ignore it, since it could not enforce it.
 */
public record ChannelOptions(int sendQueueDepth, int recvQueueDepth, int maxSge, Duration connectTimeout,
                             byte[] accessKey) {
    /** 128 send, 128 receive, 4 SGEs, 10 s to connect, random key. */
    public static final ChannelOptions DEFAULT = new ChannelOptions(128, 128, 4, Duration.ofSeconds(10));

    public ChannelOptions {
        if (sendQueueDepth < 1 || recvQueueDepth < 1 || maxSge < 1) {
            throw new IllegalArgumentException("queue depths and maxSge must be at least 1");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive");
        }
        if (accessKey != null) {
            if (accessKey.length < 16 || accessKey.length > 64) {
                throw new IllegalArgumentException("access key must be 16..64 bytes, was " + accessKey.length);
            }
            accessKey = accessKey.clone();
        }
    }

    /** Options with a transport-drawn random access key. */
    public ChannelOptions(int sendQueueDepth, int recvQueueDepth, int maxSge, Duration connectTimeout) {
        this(sendQueueDepth, recvQueueDepth, maxSge, connectTimeout, null);
    }

    /** A copy of the key, or null. */
    @Override
    public byte[] accessKey() {
        return accessKey == null ? null : accessKey.clone();
    }

    /** These options with {@code key} as the access key. */
    public ChannelOptions withAccessKey(byte[] key) {
        return new ChannelOptions(sendQueueDepth, recvQueueDepth, maxSge, connectTimeout,
                Objects.requireNonNull(key, "key"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelOptions c && sendQueueDepth == c.sendQueueDepth
                && recvQueueDepth == c.recvQueueDepth && maxSge == c.maxSge
                && connectTimeout.equals(c.connectTimeout) && java.util.Arrays.equals(accessKey, c.accessKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sendQueueDepth, recvQueueDepth, maxSge, connectTimeout, java.util.Arrays.hashCode(accessKey));
    }

    /** Never prints the key. */
    @Override
    public String toString() {
        return "ChannelOptions[send " + sendQueueDepth + ", recv " + recvQueueDepth + ", sge " + maxSge
                + ", connect " + connectTimeout + (accessKey == null ? ", random key]" : ", given key]");
    }
}
