package org.objrdma.jdk25fixture;

import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import javax.security.auth.Subject;
import javax.security.auth.SubjectDomainCombiner;
import org.objrdma.karaf.jdk25.SubjectProbe;

/**
 * Written the way Karaf 4.4.10's JaasHelper and ShellUtil are: the subject travels on a SubjectDomainCombiner
 * of an AccessControlContext, and is read back with {@code Subject.getSubject(AccessController.getContext())}.
 * On JDK 24+ this only works after the agent's rewrite.
 */
@SuppressWarnings("removal")
public class KarafStyleSubjects implements SubjectProbe {

    /** Like Karaf's {@code JaasHelper.OsgiSubjectDomainCombiner}: a subclass of SubjectDomainCombiner. */
    static final class OsgiLikeCombiner extends SubjectDomainCombiner {
        OsgiLikeCombiner(Subject subject) {
            super(subject);
        }
    }

    @Override
    public Subject currentSubject() {
        return Subject.getSubject(AccessController.getContext());
    }

    @Override
    public Subject subjectOf(AccessControlContext acc) {
        return Subject.getSubject(acc);
    }

    @Override
    public <T> T doAs(Subject subject, PrivilegedAction<T> action) {
        if (action == null) {
            throw new NullPointerException();
        }
        AccessControlContext acc = AccessController.getContext();
        return AccessController.doPrivileged(action, contextOf(acc, subject));
    }

    @Override
    public <T> T doAsChecked(Subject subject, PrivilegedExceptionAction<T> action) throws PrivilegedActionException {
        if (action == null) {
            throw new NullPointerException();
        }
        AccessControlContext acc = AccessController.getContext();
        return AccessController.doPrivileged(action, contextOf(acc, subject));
    }

    @Override
    public AccessControlContext contextFor(Subject subject) {
        return contextOf(AccessController.getContext(), subject);
    }

    private static AccessControlContext contextOf(AccessControlContext acc, Subject subject) {
        return new AccessControlContext(acc, subject != null ? new OsgiLikeCombiner(subject) : null);
    }
}
