package org.objrdma.verbs.testsupport;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The software verbs device the build makes with gcc ({@code src/test/native}, system property
 * {@code objrdma.softverbs.library}), and its test-only controls: deferred completion (a worker thread
 * executes send requests after {@code post_send} returns, like a NIC) and its delay, and whether the device
 * has memory windows.
 */
public final class SoftVerbs {
    private SoftVerbs() {
    }

    /** Absolute path of the software device's libibverbs.so.1. */
    public static String library() {
        String path = System.getProperty("objrdma.softverbs.library");
        if (path == null || !Files.isRegularFile(Path.of(path))) {
            throw new IllegalStateException("objrdma.softverbs.library must name the software verbs device built by"
                    + " src/test/native/build.sh (run the tests through Maven), was " + path);
        }
        return Path.of(path).toAbsolutePath().toString();
    }

    private static volatile MethodHandle setDeferred;
    private static volatile MethodHandle setDelayUs;
    private static volatile MethodHandle pending;
    private static volatile MethodHandle setMemoryWindows;

    private static synchronized void bind() {
        if (setDeferred != null) {
            return;
        }
        // the global arena keeps the device loaded for the whole test JVM; its state is process-wide anyway
        SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(library()), Arena.global());
        Linker linker = Linker.nativeLinker();
        setDelayUs = linker.downcallHandle(lookup.find("softverbs_set_delay_us").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        pending = linker.downcallHandle(lookup.find("softverbs_pending").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        setMemoryWindows = linker.downcallHandle(lookup.find("softverbs_set_memory_windows").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        setDeferred = linker.downcallHandle(lookup.find("softverbs_set_deferred").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /**
     * Makes the device one with (true) or without (false) type-2B memory windows, as seen by devices opened and
     * queried from now on; returns the old setting.
     */
    public static boolean setMemoryWindows(boolean on) {
        bind();
        try {
            return (int) setMemoryWindows.invokeExact(on ? 1 : 0) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Turns deferred completion on or off (off waits until the queue is empty); returns the old setting. */
    public static boolean setDeferred(boolean on) {
        bind();
        try {
            return (int) setDeferred.invokeExact(on ? 1 : 0) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Least time between post and execution in deferred mode; returns the old value. */
    public static int setDelayMicros(int micros) {
        bind();
        try {
            return (int) setDelayUs.invokeExact(micros);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Send requests posted but not yet executed. */
    public static int pending() {
        bind();
        try {
            return (int) pending.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The {@code enum ibv_event_type} values {@link #injectAsyncEvent} accepts. */
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    public static final int IBV_EVENT_PORT_ERR = 10;

    private static volatile MethodHandle injectAsyncEvent;
    private static volatile MethodHandle asyncAcked;
    private static volatile MethodHandle resetPort;

    private static synchronized void bindEvents() {
        if (injectAsyncEvent != null) {
            return;
        }
        SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(library()), Arena.global());
        Linker linker = Linker.nativeLinker();
        asyncAcked = linker.downcallHandle(lookup.find("softverbs_async_acked").orElseThrow(),
                FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_LONG));
        resetPort = linker.downcallHandle(lookup.find("softverbs_reset_port").orElseThrow(), FunctionDescriptor.ofVoid());
        injectAsyncEvent = linker.downcallHandle(lookup.find("softverbs_inject_async_event").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }

    /**
     * Raises an asynchronous event on every open context of the device, as the kernel would: PORT_ERR takes
     * port 1 down, PORT_ACTIVE brings it back (ibv_query_port follows), DEVICE_FATAL only reports.
     *
     * @return the number of contexts told, or -1 for an event or port the device does not model
     */
    public static int injectAsyncEvent(int eventType, int port) {
        bindEvents();
        try {
            return (int) injectAsyncEvent.invokeExact(eventType, port);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ibv_ack_async_event} calls the device has seen. */
    public static long asyncEventsAcked() {
        bindEvents();
        try {
            return (long) asyncAcked.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Port 1 ACTIVE again without an event: a clean slate for the next test. */
    public static void resetPort() {
        bindEvents();
        try {
            resetPort.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The real libibverbs.so.1 by absolute path when it can be found, so a JVM that has the software device
     * loaded (same soname) still gets the real one; else the bare name.
     */
    public static String realLibrary() {
        String configured = System.getProperty("objrdma.verbs.real.library");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (String dir : new String[] {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
            Path p = Path.of(dir, "libibverbs.so.1");
            if (Files.exists(p)) {
                return p.toString();
            }
        }
        return "libibverbs.so.1";
    }
}
