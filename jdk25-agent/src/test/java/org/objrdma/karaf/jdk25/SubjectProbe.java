package org.objrdma.karaf.jdk25;

import java.security.AccessControlContext;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import javax.security.auth.Subject;

/**
 * Implemented by fixture classes that are loaded through a transforming class loader; this interface is
 * loaded by the test class loader and so is shared between the test and the fixture.
 */
@SuppressWarnings("removal")
public interface SubjectProbe {

    /** {@code Subject.getSubject(AccessController.getContext())}: Karaf's "current user" idiom. */
    Subject currentSubject();

    /** {@code Subject.getSubject(acc)}. */
    Subject subjectOf(AccessControlContext acc);

    /** Karaf JaasHelper style: {@code doPrivileged(action, new AccessControlContext(ctx, combiner))}. */
    <T> T doAs(Subject subject, PrivilegedAction<T> action);

    /** The same with a {@link PrivilegedExceptionAction}. */
    <T> T doAsChecked(Subject subject, PrivilegedExceptionAction<T> action) throws PrivilegedActionException;

    /** An {@link AccessControlContext} carrying a SubjectDomainCombiner (subclass) for the subject. */
    AccessControlContext contextFor(Subject subject);
}
