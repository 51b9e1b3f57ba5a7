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
 */
public record ChannelOptions(int sendQueueDepth, int recvQueueDepth, int maxSge, Duration connectTimeout) {
    /** 128 send, 128 receive, 4 SGEs, 10 s to connect. */
    public static final ChannelOptions DEFAULT = new ChannelOptions(128, 128, 4, Duration.ofSeconds(10));

    public ChannelOptions {
        if (sendQueueDepth < 1 || recvQueueDepth < 1 || maxSge < 1) {
            throw new IllegalArgumentException("queue depths and maxSge must be at least 1");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive");
        }
    }
}
