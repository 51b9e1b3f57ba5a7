package org.objrdma.karaf.jdk25;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Class file transformer that redirects the three JDK calls whose pre-JDK-24 semantics Karaf 4.4.10 relies on
 * to {@code org.apache.karaf.jaas.boot.Jdk25SubjectShim}, which has methods of the same names and descriptors:
 *
 * <ul>
 * <li>{@code invokestatic javax/security/auth/Subject.getSubject(Ljava/security/AccessControlContext;)Ljavax/security/auth/Subject;}</li>
 * <li>{@code invokestatic java/security/AccessController.doPrivileged(Ljava/security/PrivilegedAction;Ljava/security/AccessControlContext;)Ljava/lang/Object;}</li>
 * <li>{@code invokestatic java/security/AccessController.doPrivileged(Ljava/security/PrivilegedExceptionAction;Ljava/security/AccessControlContext;)Ljava/lang/Object;}</li>
 * </ul>
 *
 * <p>One instruction is swapped for another with the same stack effect; nothing else in the class changes.
 * Filters, cheapest first: no bootstrap or platform loader; no {@code java/ jdk/ sun/} class and none of the
 * agent's own; a byte scan for {@code javax/security/auth/Subject}; a class file version the ClassFile API can
 * parse. Only methods that contain a matching call are rebuilt (their stack maps are regenerated with a class
 * hierarchy resolver that parses class resources, so no class is loaded during a transform); all other
 * methods are copied as they are. Any failure leaves the class unchanged.
 */
public final class SubjectCallRewriter implements ClassFileTransformer {

    /** Binary name of the shim the calls are redirected to. */
    public static final String SHIM_CLASS = "org.apache.karaf.jaas.boot.Jdk25SubjectShim";

    static final String SHIM_INTERNAL = SHIM_CLASS.replace('.', '/');
    static final String SUBJECT = "javax/security/auth/Subject";
    static final String ACCESS_CONTROLLER = "java/security/AccessController";
    static final String GET_SUBJECT_DESC = "(Ljava/security/AccessControlContext;)Ljavax/security/auth/Subject;";
    static final String DO_PRIVILEGED_PA_DESC =
            "(Ljava/security/PrivilegedAction;Ljava/security/AccessControlContext;)Ljava/lang/Object;";
    static final String DO_PRIVILEGED_PEA_DESC =
            "(Ljava/security/PrivilegedExceptionAction;Ljava/security/AccessControlContext;)Ljava/lang/Object;";

    private static final String OWN_PACKAGE = "org/objrdma/karaf/jdk25/";
    private static final ClassDesc SHIM = ClassDesc.ofInternalName(SHIM_INTERNAL);
    /** Also a prefix of {@code javax/security/auth/SubjectDomainCombiner}. */
    private static final byte[] MARKER = SUBJECT.getBytes(StandardCharsets.ISO_8859_1);

    /** Replaces each matching call by the shim call of the same name and descriptor. */
    private static final CodeTransform REDIRECT = (builder, element) -> {
        if (element instanceof InvokeInstruction invoke && isTarget(invoke)) {
            builder.invokestatic(SHIM, invoke.name().stringValue(), invoke.typeSymbol(), false);
        } else {
            builder.with(element);
        }
    };

    /** Result of a rewrite: the new class bytes and how many call sites were redirected. */
    record Rewrite(byte[] bytes, int calls) {
    }

    private final boolean verbose;
    private final LongAdder seen = new LongAdder();
    private final LongAdder candidates = new LongAdder();
    private final LongAdder rewritten = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder unsupportedVersion = new LongAdder();
    private final LongAdder nanos = new LongAdder();
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    private final AtomicBoolean versionLogged = new AtomicBoolean();

    public SubjectCallRewriter(boolean verbose) {
        this.verbose = verbose;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (loader == null || className == null || classfileBuffer == null) {
            return null; // bootstrap classes, hidden/anonymous classes
        }
        seen.increment();
        long start = System.nanoTime();
        try {
            if (isExcluded(loader, className) || !containsMarker(classfileBuffer)) {
                return null;
            }
            candidates.increment();
            int major = majorVersion(classfileBuffer);
            if (major < 0) {
                return null; // not a class file; the JVM will report it, not us
            }
            if (major > ClassFile.latestMajorVersion()) {
                unsupportedVersion.increment();
                if (verbose || versionLogged.compareAndSet(false, true)) {
                    AgentLog.line("left " + className + " unchanged: class file version " + major
                            + " is newer than this JDK's ClassFile API supports (" + ClassFile.latestMajorVersion() + ")");
                }
                return null;
            }
            Rewrite result = rewrite(classfileBuffer, loader);
            if (result == null) {
                return null;
            }
            rewritten.increment();
            if (verbose) {
                AgentLog.line("rewrote " + className + " (" + result.calls() + " call site(s)) in " + describe(loader));
            }
            return result.bytes();
        } catch (Throwable t) {
            failed.increment();
            try {
                if (verbose || failureLogged.compareAndSet(false, true)) {
                    AgentLog.line("left " + className + " unchanged after an error (reported once): " + t);
                }
            } catch (Throwable ignored) {
                // never fail a class load
            }
            return null;
        } finally {
            nanos.add(System.nanoTime() - start);
        }
    }

    /**
     * Rewrites the matching calls of one class.
     *
     * @param classBytes a class file
     * @param loader     where the class hierarchy needed for stack maps is looked up as resources (the
     *                   defining loader at runtime); the system class loader's resources are consulted next
     * @return the rewritten class and the number of redirected call sites, or {@code null} when the class
     *         contains no matching call
     * @throws IllegalArgumentException when the class cannot be parsed or its stack maps cannot be computed
     */
    static Rewrite rewrite(byte[] classBytes, ClassLoader loader) {
        ClassHierarchyResolver resolver = ClassHierarchyResolver.ofResourceParsing(loader)
                .orElse(ClassHierarchyResolver.ofResourceParsing(ClassLoader.getSystemClassLoader()))
                .cached();
        ClassFile classFile = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver));
        ClassModel model = classFile.parse(classBytes);
        Set<String> methods = new HashSet<>();
        int calls = 0;
        for (MethodModel method : model.methods()) {
            int n = countTargets(method);
            if (n > 0) {
                calls += n;
                methods.add(method.methodName().stringValue() + method.methodType().stringValue());
            }
        }
        if (calls == 0) {
            return null;
        }
        byte[] out = classFile.transformClass(model, ClassTransform.transformingMethodBodies(
                m -> methods.contains(m.methodName().stringValue() + m.methodType().stringValue()), REDIRECT));
        return new Rewrite(out, calls);
    }

    static int countTargets(MethodModel method) {
        Optional<CodeModel> code = method.code();
        if (code.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (CodeElement element : code.get()) {
            if (element instanceof InvokeInstruction invoke && isTarget(invoke)) {
                n++;
            }
        }
        return n;
    }

    static boolean isTarget(InvokeInstruction invoke) {
        if (invoke.opcode() != Opcode.INVOKESTATIC || invoke.isInterface()) {
            return false;
        }
        var owner = invoke.owner().name();
        if (owner.equalsString(SUBJECT)) {
            return invoke.name().equalsString("getSubject") && invoke.type().equalsString(GET_SUBJECT_DESC);
        }
        if (owner.equalsString(ACCESS_CONTROLLER)) {
            return invoke.name().equalsString("doPrivileged")
                    && (invoke.type().equalsString(DO_PRIVILEGED_PA_DESC)
                            || invoke.type().equalsString(DO_PRIVILEGED_PEA_DESC));
        }
        return false;
    }

    static boolean isExcluded(ClassLoader loader, String className) {
        return className.startsWith("java/") || className.startsWith("jdk/") || className.startsWith("sun/")
                || className.startsWith(OWN_PACKAGE) || className.startsWith(SHIM_INTERNAL)
                // JDK code defined by the platform loader (java.sql, jdk.* modules) is already JDK 24 clean
                || loader == ClassLoader.getPlatformClassLoader();
    }

    /** Whether the raw class file contains {@code javax/security/auth/Subject} (so also SubjectDomainCombiner). */
    static boolean containsMarker(byte[] bytes) {
        byte first = MARKER[0];
        int last = bytes.length - MARKER.length;
        outer:
        for (int i = 0; i <= last; i++) {
            if (bytes[i] != first) {
                continue;
            }
            for (int j = 1; j < MARKER.length; j++) {
                if (bytes[i + j] != MARKER[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The major version of a class file, or -1 when the bytes do not start like one. */
    static int majorVersion(byte[] bytes) {
        if (bytes.length < 10 || (bytes[0] & 0xFF) != 0xCA || (bytes[1] & 0xFF) != 0xFE
                || (bytes[2] & 0xFF) != 0xBA || (bytes[3] & 0xFF) != 0xBE) {
            return -1;
        }
        return ((bytes[6] & 0xFF) << 8) | (bytes[7] & 0xFF);
    }

    /**
     * Builds a small class with a branch and a {@code Subject.getSubject(acc)} call in memory and rewrites it,
     * so that the ClassFile API (and its stack map generator) is loaded before the first real transform.
     */
    void warmUp() {
        try {
            ClassDesc subject = ClassDesc.ofInternalName(SUBJECT);
            ClassDesc acc = ClassDesc.of("java.security.AccessControlContext");
            MethodTypeDesc type = MethodTypeDesc.of(subject, acc);
            byte[] probe = ClassFile.of().build(ClassDesc.of("org.objrdma.karaf.jdk25.WarmUpProbe"), cb -> cb
                    .withMethodBody("probe", type, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, code -> {
                        Label call = code.newLabel();
                        code.aload(0).ifnonnull(call).aconst_null().areturn()
                                .labelBinding(call).aload(0).invokestatic(subject, "getSubject", type).areturn();
                    }));
            Rewrite result = rewrite(probe, ClassLoader.getSystemClassLoader());
            if (result == null || result.calls() != 1) {
                AgentLog.line("warm-up did not rewrite its probe class");
            }
        } catch (Throwable t) {
            AgentLog.line("warm-up failed: " + t);
        }
    }

    String summary() {
        return "classes seen=" + seen.sum() + " scanned-hit=" + candidates.sum() + " rewritten=" + rewritten.sum()
                + " failed=" + failed.sum() + " version-too-new=" + unsupportedVersion.sum()
                + " time in transform=" + nanos.sum() / 1_000_000 + " ms";
    }

    long rewrittenCount() {
        return rewritten.sum();
    }

    long failedCount() {
        return failed.sum();
    }

    private static String describe(ClassLoader loader) {
        try {
            return String.valueOf(loader);
        } catch (Throwable t) {
            return loader.getClass().getName();
        }
    }
}
