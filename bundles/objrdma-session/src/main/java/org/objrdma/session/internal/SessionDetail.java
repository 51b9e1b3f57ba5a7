package org.objrdma.session.internal;

import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalReason;

/**
 * Every mutable field of one session at one moment: what tests compare to prove that a refused call
 * ("preserve" error) changed nothing, and what the shell may print.
 */
public record SessionDetail(long epoch, SessionState state, boolean reapPending, boolean published, boolean stageDone,
                            long prepDeadline, long execDeadline, long stagingLeaseDeadline, long refDeadline,
                            long nextNonce, long stagingNonce, long putViewNonce, int activeRef, int putRef,
                            ReadyOutcome lastOutcome, TerminalReason terminalReason, long bytesTransferred,
                            String etag, String versionId, boolean transportLost, long channelId) {
}
