package org.objrdma.transport.common;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;

/**
 * The argument checks of {@code Channel.post}, {@code submit} and {@code grant} that hold for every transport,
 * written once so that one rule refuses with one error and one message whichever transport applies it. Each
 * throws {@link TransportException} and changes nothing. What differs per transport (a closed region: a CLOSED
 * refusal in verbs, a LOC_PROT_ERR completion in TCP; queue depths; grant state rules) stays with it.
 */
public final class TransportChecks {

    private TransportChecks() {
    }

    /**
     * {@code submit}'s own arguments: both present, a positive timeout, no null request. INVALID_ARGUMENT.
     */
    public static void checkSubmit(List<WorkRequest> requests, Duration timeout) throws TransportException {
        if (requests == null || timeout == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "requests and timeout are required");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "timeout must be positive, was " + timeout);
        }
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i) == null) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "request " + i + " of the batch is null");
            }
        }
    }

    /**
     * One request's shape: present, at most {@code maxSge} entries, every entry's region registered with this
     * transport ({@code registeredHere}, named {@code transportName} in the message). INVALID_ARGUMENT.
     */
    public static void checkRequest(WorkRequest request, int maxSge, Predicate<MemoryRegion> registeredHere,
                                    String transportName) throws TransportException {
        if (request == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "request is null");
        }
        List<ScatterGatherEntry> sg = request.sgList();
        if (sg.size() > maxSge) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "request " + request.wrId() + " ("
                    + request.opcode() + ") has " + sg.size() + " scatter-gather entries; the channel allows " + maxSge);
        }
        for (ScatterGatherEntry e : sg) {
            if (!registeredHere.test(e.region())) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "request " + request.wrId()
                        + " names region " + e.region() + ", which is not registered with " + transportName);
            }
        }
    }

    /**
     * What a channel in {@code state} accepts: nothing once CLOSED (CLOSED), only receives before it is
     * connected (WRONG_STATE). ERROR accepts work, which is flushed.
     */
    public static void checkPostable(ChannelState state, long channelId, Opcode opcode) throws TransportException {
        if (state == ChannelState.CLOSED) {
            throw new TransportException(TransportError.CLOSED, "channel " + channelId + " is closed");
        }
        if (state == ChannelState.INIT && opcode != Opcode.RECV) {
            throw new TransportException(TransportError.WRONG_STATE, "channel " + channelId + " is not connected: "
                    + opcode + " needs CONNECTED (only RECV may be posted before connect)");
        }
    }

    /**
     * {@code grant}'s arguments: region and access present, the region registered with this transport, access
     * REMOTE_READ and/or REMOTE_WRITE only, REMOTE_WRITE only into a region registered with LOCAL_WRITE (as a
     * verbs memory window requires), and a non-empty slice inside the region. INVALID_ARGUMENT.
     */
    public static void checkGrant(MemoryRegion region, long offset, long length, Set<Access> access,
                                  Predicate<MemoryRegion> registeredHere, String transportName)
            throws TransportException {
        if (region == null || access == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "region and access are required");
        }
        if (!registeredHere.test(region)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "region " + region
                    + " is not registered with " + transportName);
        }
        if (access.isEmpty() || access.contains(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "a grant allows REMOTE_READ and/or REMOTE_WRITE, nothing else; got " + access);
        }
        if (access.contains(Access.REMOTE_WRITE) && !region.access().contains(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "REMOTE_WRITE needs a region registered with LOCAL_WRITE, as a verbs memory window does");
        }
        if (length <= 0 || offset < 0 || offset > region.length() - length) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "slice [" + offset + ", +" + length
                    + ") is empty or outside the region's " + region.length() + " bytes");
        }
    }
}
