package org.objrdma.api.transport;

import java.util.List;
import java.util.Optional;

/**
 * What {@link Channel#submit} reports: one completion per submitted request, in submission order.
 *
 * <p>When the batch timed out, every request that had not completed is reported with
 * {@link WcStatus#RESP_TIMEOUT_ERR}; the channel is then in {@link ChannelState#ERROR}, because a
 * request still in flight cannot be recalled and the memory it names must not be reused until the
 * transport flushed it.
 *
 * @param completions one per request, in the order the requests were given
 * @param timedOut    true if the deadline passed before every request completed
 */
public record BatchResult(List<Completion> completions, boolean timedOut) {
    public BatchResult {
        completions = List.copyOf(completions);
    }

    /** True if every request completed successfully in time. */
    public boolean isSuccess() {
        if (timedOut) {
            return false;
        }
        for (Completion c : completions) {
            if (!c.isSuccess()) {
                return false;
            }
        }
        return true;
    }

    /** The first completion that did not succeed, if any. */
    public Optional<Completion> firstFailure() {
        return completions.stream().filter(c -> !c.isSuccess()).findFirst();
    }

    /** Sum of the bytes moved by successful completions. */
    public long bytesTransferred() {
        long total = 0;
        for (Completion c : completions) {
            if (c.isSuccess()) {
                total += c.byteLength();
            }
        }
        return total;
    }
}
