package org.objrdma.karaf.jdk25;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.objrdma.karaf.jdk25.TestSupport.subject;

import java.io.IOException;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.security.ProtectionDomain;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.Subject;
import javax.security.auth.SubjectDomainCombiner;
import org.apache.karaf.jaas.boot.Jdk25SubjectShim;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shim called directly, alone and under the JDK's own {@code Subject.doAs}/{@code callAs}. */
@SuppressWarnings("removal")
class ShimContractTest {

    private static AccessControlContext plainContext() {
        return AccessController.getContext();
    }

    private static AccessControlContext contextFor(Subject s) {
        return new AccessControlContext(plainContext(), new SubjectDomainCombiner(s));
    }

    private static Subject current() {
        return Jdk25SubjectShim.getSubject(plainContext());
    }

    private static String name(Subject s) {
        return s == null ? "null" : s.getPrincipals().iterator().next().getName();
    }

    @AfterEach
    void nothingBound() {
        assertNull(Subject.current());
        assertNull(current());
    }

    @Test
    void getSubjectRejectsNullLikeTheOriginal() {
        assertThrows(NullPointerException.class, () -> Jdk25SubjectShim.getSubject(null));
    }

    @Test
    void getSubjectReturnsTheCombinersSubject() {
        Subject s = subject("a");
        assertSame(s, Jdk25SubjectShim.getSubject(contextFor(s)));
        assertNull(Jdk25SubjectShim.getSubject(new AccessControlContext(new ProtectionDomain[0])));
    }

    @Test
    void underSubjectDoAsAndCallAsGetSubjectSeesTheSubject() throws Exception {
        Subject s = subject("a");
        assertSame(s, Subject.doAs(s, (PrivilegedAction<Subject>) ShimContractTest::current));
        assertSame(s, Subject.doAs(s, (PrivilegedExceptionAction<Subject>) ShimContractTest::current));
        assertSame(s, Subject.callAs(s, ShimContractTest::current));
        // an explicit combiner wins over the ambient subject, as getSubject(acc) always read acc
        Subject other = subject("b");
        assertSame(other, Subject.callAs(s, () -> Jdk25SubjectShim.getSubject(contextFor(other))));
    }

    @Test
    void doPrivilegedWithoutCombinerJustRunsAndKeepsTheAmbientSubject() throws Exception {
        Subject s = subject("a");
        assertEquals("x", Jdk25SubjectShim.doPrivileged((PrivilegedAction<String>) () -> "x", null));
        assertEquals("y", Jdk25SubjectShim.doPrivileged((PrivilegedAction<String>) () -> "y", plainContext()));
        assertSame(s, Subject.callAs(s, () -> Jdk25SubjectShim.doPrivileged(
                (PrivilegedAction<Subject>) Subject::current, plainContext())));
        assertSame(s, Subject.callAs(s, () -> Jdk25SubjectShim.doPrivileged(
                (PrivilegedExceptionAction<Subject>) ShimContractTest::current, null)));
    }

    @Test
    void doPrivilegedWithCombinerInsideDoAsBindsAndRestores() throws Exception {
        Subject outer = subject("outer");
        Subject inner = subject("inner");
        String trace = Subject.doAs(outer, (PrivilegedAction<String>) () -> {
            Subject in = Jdk25SubjectShim.doPrivileged((PrivilegedAction<Subject>) Subject::current, contextFor(inner));
            Subject inViaGet = Jdk25SubjectShim.doPrivileged(
                    (PrivilegedAction<Subject>) ShimContractTest::current, contextFor(inner));
            return name(in) + "|" + name(inViaGet) + "|" + name(Subject.current()) + "|" + name(current());
        });
        assertEquals("CN=inner|CN=inner|CN=outer|CN=outer", trace);
    }

    @Test
    void threadsStartedInsideInheritTheSubjectThreadsStartedOutsideDoNot() throws Exception {
        Subject s = subject("a");
        AtomicReference<Subject> seen = new AtomicReference<>();
        Jdk25SubjectShim.doPrivileged((PrivilegedAction<Void>) () -> {
            Thread t = new Thread(() -> seen.set(current()));
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return null;
        }, contextFor(s));
        assertSame(s, seen.get());

        // Subject.callAs alone is not inherited (plain ScopedValue): the shim does not change the JDK here
        AtomicReference<Subject> viaCallAs = new AtomicReference<>(s);
        Subject.callAs(s, () -> {
            Thread t = new Thread(() -> viaCallAs.set(current()));
            t.start();
            t.join();
            return null;
        });
        assertNull(viaCallAs.get());
    }

    @Test
    void nestedBindingsRestoreTheInheritedSubject() throws Exception {
        Subject outer = subject("outer");
        Subject inner = subject("inner");
        AtomicReference<Subject> afterInner = new AtomicReference<>();
        Jdk25SubjectShim.doPrivileged((PrivilegedExceptionAction<Void>) () -> {
            Jdk25SubjectShim.doPrivileged((PrivilegedAction<Void>) () -> null, contextFor(inner));
            Thread t = new Thread(() -> afterInner.set(current()));
            t.start();
            t.join();
            return null;
        }, contextFor(outer));
        assertSame(outer, afterInner.get());
    }

    @Test
    void exceptionContract() {
        Subject s = subject("a");
        for (AccessControlContext acc : new AccessControlContext[] {null, plainContext(), contextFor(s)}) {
            IllegalArgumentException iae = new IllegalArgumentException();
            assertSame(iae, assertThrows(IllegalArgumentException.class,
                    () -> Jdk25SubjectShim.doPrivileged((PrivilegedAction<Object>) () -> {
                        throw iae;
                    }, acc)));
            assertSame(iae, assertThrows(IllegalArgumentException.class,
                    () -> Jdk25SubjectShim.doPrivileged((PrivilegedExceptionAction<Object>) () -> {
                        throw iae;
                    }, acc)));
            StackOverflowError error = new StackOverflowError();
            assertSame(error, assertThrows(StackOverflowError.class,
                    () -> Jdk25SubjectShim.doPrivileged((PrivilegedExceptionAction<Object>) () -> {
                        throw error;
                    }, acc)));
            IOException io = new IOException();
            assertSame(io, assertThrows(PrivilegedActionException.class,
                    () -> Jdk25SubjectShim.doPrivileged((PrivilegedExceptionAction<Object>) () -> {
                        throw io;
                    }, acc)).getException());
            assertThrows(NullPointerException.class,
                    () -> Jdk25SubjectShim.doPrivileged((PrivilegedAction<Object>) null, acc));
        }
    }

    @Test
    void sameAsTheJdkWhereTheJdkStillWorks() throws Exception {
        // Where JDK 25's own AccessController works (no combiner), the shim gives identical results.
        IOException io = new IOException();
        PrivilegedExceptionAction<Object> failing = () -> {
            throw io;
        };
        PrivilegedActionException jdk = assertThrows(PrivilegedActionException.class,
                () -> AccessController.doPrivileged(failing, plainContext()));
        PrivilegedActionException shim = assertThrows(PrivilegedActionException.class,
                () -> Jdk25SubjectShim.doPrivileged(failing, plainContext()));
        assertSame(jdk.getException(), shim.getException());
        assertEquals(AccessController.doPrivileged((PrivilegedAction<String>) () -> "v", plainContext()),
                Jdk25SubjectShim.doPrivileged((PrivilegedAction<String>) () -> "v", plainContext()));
    }
}
