package org.objrdma.session.internal;

import java.util.ArrayList;
import java.util.List;
import org.objrdma.transport.common.Closer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one PREPARE acquired so far. Closing the scope gives everything back in reverse order of acquisition (the
 * channel before the lease it reads from, the lease before the limit charge), each release attempted even when an
 * earlier one threw; {@link #keep()} hands it all to the published session instead. Used in try-with-resources, so
 * every early return of PREPARE rolls back without nulling locals.
 */
final class AcquiredScope implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AcquiredScope.class);

    private final String what;
    private final List<AutoCloseable> releases = new ArrayList<>();
    private boolean kept;

    /** @param what names the acquirer in the log line of a release that failed */
    AcquiredScope(String what) {
        this.what = what;
    }

    /** Records how to give back what was just acquired; returns {@code acquired}. */
    <T> T add(T acquired, AutoCloseable release) {
        releases.add(release);
        return acquired;
    }

    /** Everything acquired now belongs to someone else: closing the scope releases nothing. */
    void keep() {
        kept = true;
    }

    @Override
    public void close() {
        if (kept) {
            return;
        }
        Closer.closeAllQuietly(failure -> LOG.warn("{}: rolling back what it acquired failed", what, failure),
                Closer.reversed(releases));
    }
}
