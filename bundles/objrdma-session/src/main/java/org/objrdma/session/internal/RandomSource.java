package org.objrdma.session.internal;

import java.security.SecureRandom;

/**
 * Where session ids come from. Injected so that tests can make it fail (PREPARE then answers
 * {@code INTERNAL} and rolls back) or make it repeat (an id collision).
 */
@FunctionalInterface
public interface RandomSource {

    /**
     * Fills {@code bytes} with unpredictable bytes.
     *
     * @throws RuntimeException if no randomness is available; the caller treats it as an internal error
     */
    void nextBytes(byte[] bytes);

    /** A {@link SecureRandom} from the platform's default provider. */
    static RandomSource secure() {
        SecureRandom random = new SecureRandom();
        return random::nextBytes;
    }
}
