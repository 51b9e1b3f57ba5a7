package org.objrdma.api.session;

/**
 * Names one staging lease or put view: {@code {epoch, nonce}} of {@code rc_handle}.
 * The epoch is unique per session for the manager's lifetime, so a handle from one session never
 * consumes another's lease; the nonce counts borrows within the session, starting at 1.
 *
 * @param epoch the session's epoch
 * @param nonce the borrow's number, 0 for "no handle"
 */
public record LeaseHandle(long epoch, long nonce) {
    /** The invalid handle. */
    public static final LeaseHandle NONE = new LeaseHandle(0, 0);

    /** Valid iff the nonce is not 0. */
    public boolean isValid() {
        return nonce != 0;
    }
}
