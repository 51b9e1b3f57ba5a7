package org.objrdma.api.session;

import java.util.Optional;

/**
 * A session's name: 128 random bits as 32 lower-case hex digits. Unguessable, so knowing one is not
 * proof of ownership; owner checks still apply.
 *
 * @param hex 32 lower-case hex digits
 */
public record SessionId(String hex) {
    /** Length of the text form. */
    public static final int HEX_LENGTH = 32;

    public SessionId {
        if (!isWellFormed(hex)) {
            throw new IllegalArgumentException("session id must be 32 lower-case hex digits");
        }
    }

    /** The id written in {@code text}, or empty if it is not exactly 32 lower-case hex digits. Never throws. */
    public static Optional<SessionId> parse(String text) {
        return isWellFormed(text) ? Optional.of(new SessionId(text)) : Optional.empty();
    }

    private static boolean isWellFormed(String s) {
        if (s == null || s.length() != HEX_LENGTH) {
            return false;
        }
        for (int i = 0; i < HEX_LENGTH; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return hex;
    }
}
