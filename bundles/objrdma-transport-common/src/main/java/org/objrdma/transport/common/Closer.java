package org.objrdma.transport.common;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.objrdma.transport.common.internal.FailureCollector;

/**
 * Closes several resources in one line, in the order written there, and loses no failure: every resource is
 * closed even when an earlier one throws; the first failure is reported with every later one added to it as
 * suppressed. {@code null} entries are skipped, and a resource named twice in one call is closed once, so a
 * shutdown path can name what it may or may not have opened. A resource that is not {@link AutoCloseable}
 * (a service registration, an executor) is named as a lambda: {@code () -> registration.unregister()}.
 *
 * <p>{@link #closeAll(AutoCloseable...)} throws what it collected; {@link #closeAllQuietly} hands it to a
 * consumer (a logger) instead, for a {@code close()} or {@code deactivate()} that must not throw. A group of
 * resources closes as one entry through {@link #all} (in the group's order) or {@link #reversed} (last opened
 * first), so mixed shutdowns still read as one line:
 * {@code Closer.closeAll(Closer.reversed(publications), Closer.all(transports), library)}.
 */
public final class Closer {

    private Closer() {
    }

    /**
     * Closes every resource, in order. If any close failed, throws the first failure (later ones suppressed):
     * a {@link RuntimeException} or {@link Error} as it is, a checked exception wrapped in a
     * {@link CloseFailedException} whose cause it is. An {@link InterruptedException} also sets the thread's
     * interrupt flag again.
     */
    public static void closeAll(AutoCloseable... resources) {
        rethrow(collect(resources == null ? null : Arrays.asList(resources)));
    }

    /** {@link #closeAll(AutoCloseable...)} over a collection, in its iteration order. */
    public static void closeAll(Iterable<? extends AutoCloseable> resources) {
        rethrow(collect(resources));
    }

    /**
     * Closes every resource, in order, and never throws: if any close failed, {@code onFailure} receives the
     * first failure (later ones suppressed), once.
     */
    public static void closeAllQuietly(Consumer<? super Throwable> onFailure, AutoCloseable... resources) {
        Throwable failure = collect(resources == null ? null : Arrays.asList(resources));
        if (failure != null) {
            onFailure.accept(failure);
        }
    }

    /**
     * The resources as one: closing it closes each in the iteration order (a snapshot taken when it is closed)
     * and throws like {@link #closeAll(AutoCloseable...)}.
     */
    public static AutoCloseable all(Iterable<? extends AutoCloseable> resources) {
        return () -> closeAll(snapshot(resources));
    }

    /** The resources as one, closed last first: what was opened last goes first (a snapshot taken at close). */
    public static AutoCloseable reversed(Iterable<? extends AutoCloseable> resources) {
        return () -> {
            List<AutoCloseable> copy = snapshot(resources);
            Collections.reverse(copy);
            closeAll(copy);
        };
    }

    private static List<AutoCloseable> snapshot(Iterable<? extends AutoCloseable> resources) {
        List<AutoCloseable> copy = new ArrayList<>();
        if (resources != null) {
            resources.forEach(copy::add);
        }
        return copy;
    }

    private static Throwable collect(Iterable<? extends AutoCloseable> resources) {
        FailureCollector failures = new FailureCollector();
        if (resources == null) {
            return null;
        }
        Set<AutoCloseable> closed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (AutoCloseable r : resources) {
            if (r == null || !closed.add(r)) {
                continue;
            }
            try {
                r.close();
            } catch (Throwable t) {
                failures.add(t);
            }
        }
        return failures.result();
    }

    private static void rethrow(Throwable failure) {
        switch (failure) {
            case null -> {
            }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new CloseFailedException(failure);
        }
    }
}
