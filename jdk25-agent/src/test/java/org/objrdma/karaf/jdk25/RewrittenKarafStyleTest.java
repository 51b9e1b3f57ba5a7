package org.objrdma.karaf.jdk25;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.karaf.jdk25.TestSupport.FIXTURE_PACKAGE;
import static org.objrdma.karaf.jdk25.TestSupport.subject;

import java.io.IOException;
import java.lang.reflect.Method;
import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.Subject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Karaf-style code (see {@code org.objrdma.jdk25fixture.KarafStyleSubjects}) loaded through a class loader that
 * applies the agent's transformer must behave as it did before JDK 24.
 */
class RewrittenKarafStyleTest {

    private SubjectCallRewriter rewriter;
    private TransformingClassLoader loader;
    private SubjectProbe karaf;

    @BeforeEach
    void load() throws Exception {
        rewriter = new SubjectCallRewriter(false);
        loader = new TransformingClassLoader(getClass().getClassLoader(), FIXTURE_PACKAGE, rewriter);
        karaf = (SubjectProbe) loader.loadClass(FIXTURE_PACKAGE + "KarafStyleSubjects")
                .getDeclaredConstructor().newInstance();
        assertTrue(loader.wasRewritten("org/objrdma/jdk25fixture/KarafStyleSubjects"));
    }

    @AfterEach
    void nothingLeaks() {
        assertNull(Subject.current(), "Subject.current() must be unbound after the call");
        assertNull(karaf.currentSubject(), "getSubject must be null after the call");
        assertEquals(0, rewriter.failedCount());
    }

    @Test
    void withoutTheAgentKarafStyleCodeIsBrokenOnThisJdk() throws Exception {
        // Baseline: the same class, not rewritten. This is what Karaf 4.4.10 hits on JDK 24+.
        TransformingClassLoader plain = new TransformingClassLoader(getClass().getClassLoader(), FIXTURE_PACKAGE, null);
        SubjectProbe original = (SubjectProbe) plain.loadClass(FIXTURE_PACKAGE + "KarafStyleSubjects")
                .getDeclaredConstructor().newInstance();
        assertThrows(UnsupportedOperationException.class, original::currentSubject);
        Subject s = subject("karaf");
        assertNull(original.doAs(s, Subject::current), "JDK 24+ doPrivileged(action, acc) ignores the context");
    }

    @Test
    void subjectIsVisibleInsideDoAs() {
        Subject s = subject("karaf");
        Subject seen = karaf.doAs(s, karaf::currentSubject);
        assertSame(s, seen);
        assertSame(s, karaf.doAs(s, Subject::current), "Subject.current() inside is the subject");
        assertSame(s, karaf.subjectOf(karaf.contextFor(s)), "getSubject(acc) returns the combiner's subject");
    }

    @Test
    void checkedVariantBindsTheSubjectToo() throws Exception {
        Subject s = subject("karaf");
        assertSame(s, karaf.doAsChecked(s, karaf::currentSubject));
        assertSame(s, karaf.doAsChecked(s, Subject::current));
    }

    @Test
    void nestedDoAsBindsInnerAndRestoresOuter() {
        Subject outer = subject("outer");
        Subject inner = subject("inner");
        String trace = karaf.doAs(outer, () -> {
            Subject before = karaf.currentSubject();
            Subject in = karaf.doAs(inner, karaf::currentSubject);
            Subject afterInner = karaf.currentSubject();
            Subject currentAfter = Subject.current();
            return name(before) + "/" + name(in) + "/" + name(afterInner) + "/" + name(currentAfter);
        });
        assertEquals("outer/inner/outer/outer", trace);
    }

    @Test
    void threadStartedInsideInheritsTheSubject() throws Exception {
        Subject s = subject("karaf");
        AtomicReference<Subject> inChild = new AtomicReference<>();
        AtomicReference<Subject> inGrandChild = new AtomicReference<>();
        karaf.doAs(s, () -> {
            Thread child = new Thread(() -> {
                inChild.set(karaf.currentSubject());
                Thread grandChild = new Thread(() -> inGrandChild.set(karaf.currentSubject()));
                grandChild.start();
                join(grandChild);
            });
            child.start();
            join(child);
            return null;
        });
        assertSame(s, inChild.get());
        assertSame(s, inGrandChild.get());

        AtomicReference<Subject> later = new AtomicReference<>(s);
        Thread after = new Thread(() -> later.set(karaf.currentSubject()));
        after.start();
        after.join();
        assertNull(later.get(), "a thread started after the call inherits nothing");
    }

    @Test
    void poolThreadCreatedInsideInheritsLikeTheOldAccessControlContext() throws Exception {
        // Gogo runs pipes on pool threads the session thread creates; those must see the session's subject.
        Subject s = subject("karaf");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Subject seen = karaf.doAs(s, () -> {
                try {
                    return pool.submit(karaf::currentSubject).get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertSame(s, seen);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void runtimeExceptionsAndErrorsPassUnchanged() {
        Subject s = subject("karaf");
        IllegalStateException ise = new IllegalStateException("boom");
        assertSame(ise, assertThrows(IllegalStateException.class, () -> karaf.doAs(s, () -> {
            throw ise;
        })));
        AssertionError error = new AssertionError("err");
        assertSame(error, assertThrows(AssertionError.class, () -> karaf.doAs(s, () -> {
            throw error;
        })));
        assertSame(ise, assertThrows(IllegalStateException.class,
                () -> karaf.doAsChecked(s, (PrivilegedExceptionAction<Object>) () -> {
                    throw ise;
                })));
        assertSame(error, assertThrows(AssertionError.class,
                () -> karaf.doAsChecked(s, (PrivilegedExceptionAction<Object>) () -> {
                    throw error;
                })));
    }

    @Test
    void checkedExceptionsAreWrappedInPrivilegedActionException() {
        Subject s = subject("karaf");
        IOException io = new IOException("io");
        PrivilegedActionException pae = assertThrows(PrivilegedActionException.class,
                () -> karaf.doAsChecked(s, (PrivilegedExceptionAction<Object>) () -> {
                    throw io;
                }));
        assertSame(io, pae.getException());
    }

    @Test
    void checkedExceptionSneakedOutOfPrivilegedActionPassesUnchanged() {
        Subject s = subject("karaf");
        Exception checked = new Exception("sneaky");
        Exception thrown = assertThrows(Exception.class, () -> karaf.doAs(s, (PrivilegedAction<Object>) () -> {
            throw TestSupport.<RuntimeException>sneaky(checked);
        }));
        assertSame(checked, thrown);
    }

    @Test
    void subjectIsUnboundAfterAnException() {
        Subject s = subject("karaf");
        assertThrows(IllegalStateException.class, () -> karaf.doAs(s, () -> {
            throw new IllegalStateException();
        }));
        assertThrows(PrivilegedActionException.class, () -> karaf.doAsChecked(s, () -> {
            throw new IOException();
        }));
        // @AfterEach checks that nothing is bound any more
    }

    @Test
    void doAsWithNullSubjectRunsTheAction() {
        // Known limit: like the JDK 24+ doPrivileged it just runs the action (it no longer clears the subject).
        assertEquals("ran", karaf.doAs(null, () -> "ran"));
        Subject s = subject("karaf");
        assertSame(s, karaf.doAs(s, () -> karaf.doAs(null, karaf::currentSubject)));
    }

    @Test
    @SuppressWarnings("removal")
    void controlFlowHeavyClassIsRewrittenAndRuns() throws Exception {
        Class<?> tricky = loader.loadClass(FIXTURE_PACKAGE + "TrickyFlow");
        assertTrue(loader.wasRewritten("org/objrdma/jdk25fixture/TrickyFlow"));
        assertEquals("none", tricky.getDeclaredField("STATIC_STATE").get(null));
        Subject s = subject("karaf");
        Method names = tricky.getMethod("names", java.security.AccessControlContext.class, int.class);
        assertEquals("3 1,1,caught:subject,1", names.invoke(null, karaf.contextFor(s), 3));
        Method checked = tricky.getMethod("checked", java.security.AccessControlContext.class, boolean.class);
        assertSame(s, checked.invoke(null, karaf.contextFor(s), false));
        Throwable failure = assertThrows(java.lang.reflect.InvocationTargetException.class,
                () -> checked.invoke(null, karaf.contextFor(s), true)).getCause();
        assertTrue(failure instanceof IOException, String.valueOf(failure));
        assertEquals(-4, tricky.getMethod("untouched", int.class).invoke(null, 5));
    }

    private static String name(Subject s) {
        return s == null ? "null" : s.getPrincipals().iterator().next().getName().substring(3);
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
