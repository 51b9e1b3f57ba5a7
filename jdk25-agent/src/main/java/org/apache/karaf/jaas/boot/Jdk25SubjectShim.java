package org.apache.karaf.jaas.boot;

import java.security.AccessControlContext;
import java.security.DomainCombiner;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.Objects;
import javax.security.auth.Subject;
import javax.security.auth.SubjectDomainCombiner;

/**
 * Pre-JDK-24 subject propagation for code rewritten by the objrdma JDK 25 agent. Not Karaf code: it is
 * shipped in the agent jar ({@code objrdma-karaf-jdk25-agent}) and lives in this package only because Karaf
 * boot-delegates {@code org.apache.karaf.jaas.boot}, so every bundle sees this one class without an
 * Import-Package (see the agent's README).
 *
 * <p>The agent replaces {@code invokestatic Subject.getSubject(AccessControlContext)} and
 * {@code AccessController.doPrivileged(PrivilegedAction|PrivilegedExceptionAction, AccessControlContext)} by
 * calls to the methods of the same names and descriptors here. On JDK 24+ the originals no longer work:
 * {@code getSubject} always throws {@link UnsupportedOperationException} and {@code doPrivileged} ignores the
 * context, so the subject that Karaf puts on a {@link SubjectDomainCombiner} is never seen.
 *
 * <p>Semantics emulated here:
 * <ul>
 * <li>{@code doPrivileged(action, acc)} whose context carries a {@link SubjectDomainCombiner} with a subject
 * runs the action with that subject bound twice: with {@link Subject#callAs} (so {@link Subject#current()}
 * and JDK code see it) and in an {@link InheritableThreadLocal} (so threads started inside the action inherit
 * it, as they inherited the {@code AccessControlContext} before JDK 24). Both bindings are restored
 * afterwards. Without such a combiner the action just runs, as on JDK 24+.</li>
 * <li>Exceptions follow the old contract: a checked exception of a {@link PrivilegedExceptionAction} is
 * wrapped in a {@link PrivilegedActionException}; runtime exceptions and errors pass unchanged.</li>
 * <li>{@code getSubject(acc)} returns the subject of {@code acc}'s {@link SubjectDomainCombiner}, else
 * {@link Subject#current()}, else the subject inherited by this thread, else {@code null}.</li>
 * </ul>
 */
@SuppressWarnings("removal") // AccessControlContext & co. are deprecated for removal; this class exists because of them
public final class Jdk25SubjectShim {

    /**
     * The subject bound by {@link #doPrivileged}, inherited by threads created while it is bound (like the
     * inherited AccessControlContext of old, such threads keep it for their whole life).
     */
    private static final InheritableThreadLocal<Subject> INHERITED = new InheritableThreadLocal<>();

    private Jdk25SubjectShim() {
    }

    /** Replacement for {@link Subject#getSubject(AccessControlContext)}. */
    public static Subject getSubject(AccessControlContext acc) {
        Objects.requireNonNull(acc, "invalid null AccessControlContext provided");
        Subject subject = combinerSubject(acc);
        if (subject != null) {
            return subject;
        }
        subject = Subject.current();
        return subject != null ? subject : INHERITED.get();
    }

    /** Replacement for {@link java.security.AccessController#doPrivileged(PrivilegedAction, AccessControlContext)}. */
    public static <T> T doPrivileged(PrivilegedAction<T> action, AccessControlContext acc) {
        Objects.requireNonNull(action, "action");
        Subject subject = acc == null ? null : combinerSubject(acc);
        if (subject == null) {
            return action.run();
        }
        try {
            return runBound(subject, action::run);
        } catch (Exception e) {
            // a PrivilegedAction cannot declare checked exceptions; one thrown anyway passes unchanged
            throw Jdk25SubjectShim.<RuntimeException>sneakyThrow(e);
        }
    }

    /**
     * Replacement for
     * {@link java.security.AccessController#doPrivileged(PrivilegedExceptionAction, AccessControlContext)}.
     */
    public static <T> T doPrivileged(PrivilegedExceptionAction<T> action, AccessControlContext acc)
            throws PrivilegedActionException {
        Objects.requireNonNull(action, "action");
        Subject subject = acc == null ? null : combinerSubject(acc);
        try {
            return subject == null ? action.run() : runBound(subject, action);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new PrivilegedActionException(e);
        }
    }

    private static Subject combinerSubject(AccessControlContext acc) {
        DomainCombiner combiner = acc.getDomainCombiner();
        return combiner instanceof SubjectDomainCombiner sdc ? sdc.getSubject() : null;
    }

    /** Runs the action with the subject bound by {@link Subject#callAs} and the inheritable thread-local. */
    private static <T> T runBound(Subject subject, PrivilegedExceptionAction<T> action) throws Exception {
        Subject previous = INHERITED.get();
        INHERITED.set(subject);
        try {
            // The callable never throws: the outcome is carried out of callAs as a value, so callAs's
            // CompletionException wrapping can never be confused with an exception of the action itself.
            Outcome<T> outcome = Subject.callAs(subject, () -> {
                try {
                    return new Outcome<>(action.run(), null);
                } catch (Throwable t) {
                    return new Outcome<>(null, t);
                }
            });
            Throwable failure = outcome.failure();
            if (failure == null) {
                return outcome.value();
            }
            if (failure instanceof Exception e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            throw Jdk25SubjectShim.<RuntimeException>sneakyThrow(failure);
        } finally {
            if (previous == null) {
                INHERITED.remove();
            } else {
                INHERITED.set(previous);
            }
        }
    }

    private record Outcome<T>(T value, Throwable failure) {
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }
}
