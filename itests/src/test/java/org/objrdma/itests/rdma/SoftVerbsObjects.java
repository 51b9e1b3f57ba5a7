package org.objrdma.itests.rdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The software verbs device's count of live objects in this process ({@code softverbs_live_objects}, a test
 * control of the device built by objrdma-verbs): what a leak audit compares with its baseline. Works in any JVM
 * that has the device loaded (Karaf with {@code library.path} set to it, the client JVM); looking the library up
 * by its path again shares the loaded copy.
 */
public final class SoftVerbsObjects {
    public static final int QPS = 4;
    public static final int MRS = 2;
    public static final int MWS = 5;
    public static final int BOUND_MWS = 6;

    private final MethodHandle live;

    private SoftVerbsObjects(String library) {
        // the global arena: the device stays loaded for the JVM anyway while its transports use it
        SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(library), Arena.global());
        Linker linker = Linker.nativeLinker();
        live = linker.downcallHandle(lookup.find("softverbs_live_objects").orElseThrow(
                () -> new IllegalStateException(library + " has no softverbs_live_objects: not the software device")),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    public static SoftVerbsObjects of(String library) {
        return new SoftVerbsObjects(library);
    }

    public int live(int kind) {
        try {
            return (int) live.invokeExact(kind);
        } catch (Throwable t) {
            throw new IllegalStateException("softverbs_live_objects(" + kind + ") failed", t);
        }
    }

    /** {@code qps=N mrs=N mws=N bound=N}. */
    public String describe() {
        return "qps=" + live(QPS) + " mrs=" + live(MRS) + " mws=" + live(MWS) + " bound=" + live(BOUND_MWS);
    }
}
