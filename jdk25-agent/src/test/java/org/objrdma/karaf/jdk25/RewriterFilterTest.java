package org.objrdma.karaf.jdk25;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.karaf.jdk25.TestSupport.FIXTURE_PACKAGE;
import static org.objrdma.karaf.jdk25.TestSupport.classBytes;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.InvokeInstruction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What the transformer must leave alone, and what a rewritten class looks like. */
class RewriterFilterTest {

    private final SubjectCallRewriter rewriter = new SubjectCallRewriter(false);
    private final ClassLoader loader = getClass().getClassLoader();

    private byte[] transform(String internalName, byte[] bytes) {
        return assertDoesNotThrow(() -> rewriter.transform(loader, internalName, null, null, bytes));
    }

    @Test
    void classWithoutSubjectIsNotTouched() {
        byte[] bytes = classBytes(FIXTURE_PACKAGE + "NoSubjectUse");
        byte[] copy = bytes.clone();
        assertFalse(SubjectCallRewriter.containsMarker(bytes));
        assertNull(transform("org/objrdma/jdk25fixture/NoSubjectUse", bytes));
        assertArrayEquals(copy, bytes, "input buffer must not be modified");
    }

    @Test
    void classMentioningSubjectWithoutTargetCallsIsNotTouched() {
        byte[] bytes = classBytes(FIXTURE_PACKAGE + "SubjectWithoutTargets");
        assertTrue(SubjectCallRewriter.containsMarker(bytes));
        assertNull(transform("org/objrdma/jdk25fixture/SubjectWithoutTargets", bytes));
        // also the combiner subclass: mentions SubjectDomainCombiner only
        assertNull(transform("org/objrdma/jdk25fixture/KarafStyleSubjects$OsgiLikeCombiner",
                classBytes(FIXTURE_PACKAGE + "KarafStyleSubjects$OsgiLikeCombiner")));
        assertEquals(0, rewriter.rewrittenCount());
        assertEquals(0, rewriter.failedCount());
    }

    @Test
    void bootstrapPlatformJdkAndOwnClassesAreSkipped() {
        byte[] target = classBytes(FIXTURE_PACKAGE + "KarafStyleSubjects");
        assertNull(assertDoesNotThrow(() -> rewriter.transform(null, "org/objrdma/jdk25fixture/KarafStyleSubjects",
                null, null, target)), "bootstrap loader");
        assertNull(assertDoesNotThrow(() -> rewriter.transform(ClassLoader.getPlatformClassLoader(),
                "org/objrdma/jdk25fixture/KarafStyleSubjects", null, null, target)), "platform loader");
        for (String name : List.of("java/x/Y", "jdk/x/Y", "sun/x/Y", "org/objrdma/karaf/jdk25/Anything",
                "org/apache/karaf/jaas/boot/Jdk25SubjectShim", "org/apache/karaf/jaas/boot/Jdk25SubjectShim$Outcome")) {
            assertNull(transform(name, target), name);
        }
        assertNull(assertDoesNotThrow(() -> rewriter.transform(loader, null, null, null, target)), "hidden class");
        // the same bytes under their real name are rewritten
        assertNotNull(transform("org/objrdma/jdk25fixture/KarafStyleSubjects", target));
    }

    @Test
    void garbageIsLeftAloneWithoutAnException() {
        Random random = new Random(42);
        byte[] marker = "javax/security/auth/Subject".getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[random.nextInt(400)];
            random.nextBytes(junk);
            if (i % 2 == 0 && junk.length > marker.length + 10) {
                System.arraycopy(marker, 0, junk, 10, marker.length); // passes the byte scan
                junk[0] = (byte) 0xCA; // and looks like a class file header
                junk[1] = (byte) 0xFE;
                junk[2] = (byte) 0xBA;
                junk[3] = (byte) 0xBE;
                junk[6] = 0;
                junk[7] = 61;
            }
            assertNull(transform("org/example/Junk" + i, junk));
        }
        assertNull(transform("org/example/Empty", new byte[0]));
    }

    @Test
    void truncatedClassFilesAreLeftAlone() {
        byte[] bytes = classBytes(FIXTURE_PACKAGE + "KarafStyleSubjects");
        for (int len = 0; len < bytes.length; len += Math.max(1, len / 7)) {
            byte[] cut = Arrays.copyOf(bytes, len);
            assertNull(transform("org/objrdma/jdk25fixture/KarafStyleSubjects", cut), "truncated at " + len);
        }
        assertTrue(rewriter.failedCount() > 0, "parse failures are counted");
        assertEquals(0, rewriter.rewrittenCount());
    }

    @Test
    void classFileVersionTooNewForTheClassFileApiIsLeftAlone() {
        byte[] bytes = classBytes(FIXTURE_PACKAGE + "KarafStyleSubjects");
        int tooNew = ClassFile.latestMajorVersion() + 1;
        bytes[6] = (byte) (tooNew >> 8);
        bytes[7] = (byte) tooNew;
        assertNull(transform("org/objrdma/jdk25fixture/KarafStyleSubjects", bytes));
        assertEquals(0, rewriter.failedCount(), "not a failure, just skipped");
    }

    @Test
    void onlyTheTargetCallsChangeAndTheResultVerifies() {
        byte[] original = classBytes(FIXTURE_PACKAGE + "TrickyFlow");
        byte[] rewritten = transform("org/objrdma/jdk25fixture/TrickyFlow", original);
        assertNotNull(rewritten);
        assertEquals(List.of(), ClassFile.of().verify(rewritten), "verifier errors");

        ClassModel before = ClassFile.of().parse(original);
        ClassModel after = ClassFile.of().parse(rewritten);
        assertEquals(before.methods().size(), after.methods().size());
        int redirected = 0;
        for (int i = 0; i < before.methods().size(); i++) {
            MethodModel b = before.methods().get(i);
            MethodModel a = after.methods().get(i);
            assertEquals(b.methodName().stringValue() + b.methodType().stringValue(),
                    a.methodName().stringValue() + a.methodType().stringValue());
            if (SubjectCallRewriter.countTargets(b) == 0) {
                CodeAttribute cb = b.findAttribute(Attributes.code()).orElse(null);
                CodeAttribute ca = a.findAttribute(Attributes.code()).orElse(null);
                if (cb != null) {
                    assertArrayEquals(cb.codeArray(), ca.codeArray(), "untouched method " + b.methodName());
                }
                continue;
            }
            assertEquals(0, SubjectCallRewriter.countTargets(a), "no target call left in " + a.methodName());
            List<String> wasCalls = invokes(b);
            List<String> nowCalls = invokes(a);
            assertEquals(wasCalls.size(), nowCalls.size());
            for (int k = 0; k < wasCalls.size(); k++) {
                String was = wasCalls.get(k);
                String now = nowCalls.get(k);
                if (!was.equals(now)) {
                    redirected++;
                    assertTrue(now.startsWith(SubjectCallRewriter.SHIM_INTERNAL + "."), now);
                    assertEquals(was.substring(was.indexOf('.')), now.substring(now.indexOf('.')),
                            "same name and descriptor");
                }
            }
        }
        // <clinit> 1, names 2, lambda in checked 1, checked's doPrivileged(PEA, acc) 1
        assertEquals(5, redirected);
    }

    @Test
    void containsMarkerFindsOnlyTheWholeName() {
        assertTrue(SubjectCallRewriter.containsMarker("xxjavax/security/auth/Subject".getBytes(StandardCharsets.ISO_8859_1)));
        assertTrue(SubjectCallRewriter.containsMarker("javax/security/auth/SubjectDomainCombiner".getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(SubjectCallRewriter.containsMarker("javax/security/auth/Subjec".getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(SubjectCallRewriter.containsMarker("javax.security.auth.Subject".getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static List<String> invokes(MethodModel m) {
        List<String> out = new ArrayList<>();
        for (CodeElement e : m.code().orElseThrow()) {
            if (e instanceof InvokeInstruction i) {
                out.add(i.owner().asInternalName() + "." + i.name().stringValue() + i.type().stringValue());
            }
        }
        return out;
    }
}
