package org.objrdma.api.transport;

import java.util.Objects;

/**
 * What a transport says about one of its open channels at one moment, for operators (shell, JMX): a value,
 * not a handle, so reading it touches nothing.
 *
 * @param id           the channel's {@link Channel#id()}
 * @param state        its state when read
 * @param peer         who is on the other side ({@code host:port#channel} on TCP), or empty when not connected
 * @param grants       the {@link MemoryGrant}s of the channel that are not revoked
 * @param bytesWritten bytes this side's completed WRITE and WRITE_WITH_IMM requests moved, or -1 when the
 *                     transport does not count them per channel
 * @param bytesRead    bytes this side's completed READ requests moved, or -1 likewise
 * @since 2.1
 */
public record ChannelInfo(long id, ChannelState state, String peer, int grants, long bytesWritten, long bytesRead) {

    public ChannelInfo {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(peer, "peer");
        if (grants < 0 || bytesWritten < -1 || bytesRead < -1) {
            throw new IllegalArgumentException("grants and byte counts are not negative (bytes: -1 for unknown)");
        }
    }
}
