package org.objrdma.verbs.internal.transport.dc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.PortAttributes;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.testsupport.SoftVerbs;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.CuObjTokenHeader;
import org.objrdma.wire.TokenResult;

/**
 * DC across processes on the software device's fabric, as cuObject runs it: the client's {@link DcTarget} in a
 * second JVM prints its descriptor; this JVM's {@link DcInitiator} parses it and moves 8 MiB each way byte-exact,
 * is refused with a wrong key (the client's bytes unchanged), and after the client is killed ends the next request
 * without success and returns every DC object of its own to the baseline.
 */
class DcCrossProcessTest {

    private static final long KEY = 0x1234_5678_9abc_def0L;
    private static final int SIZE = 8 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Process peer;
    private BufferedReader from;
    private PrintWriter to;
    private VerbsLibrary lib;
    private Mlx5DvLibrary mlx5;
    private VerbsLibrary.DeviceList list;
    private MemorySegment ctx;
    private MemorySegment pd;
    private Arena arena;
    private DcPort port;
    private MemorySegment staging;
    private VerbsLibrary.RegisteredMemory stagingMr;
    private int[] baseline;

    @BeforeEach
    void start() throws Throwable {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        peer = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-Dobjrdma.softverbs.library=" + System.getProperty("objrdma.softverbs.library"),
                "-cp", System.getProperty("java.class.path"), DcCrossProcessTest.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        from = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        to = new PrintWriter(peer.getOutputStream(), true, StandardCharsets.UTF_8);
        lib = VerbsLibrary.load(SoftVerbs.library());
        mlx5 = Mlx5DvLibrary.load(SoftVerbs.library());
        list = lib.listDevices();
        ctx = lib.openDevice(list.devices().getFirst());
        pd = lib.allocPd(ctx);
        port = new DcPort(1, lib.queryPort(ctx, 1).activeMtu(), false, 0);
        arena = Arena.ofShared();
        staging = arena.allocate(SIZE, 4096);
        baseline = census();
        stagingMr = lib.regMr(pd, staging, IbvConstants.IBV_ACCESS_LOCAL_WRITE);
    }

    @AfterEach
    void stop() throws Throwable {
        to.close();
        if (!peer.waitFor(30, TimeUnit.SECONDS)) {
            peer.destroyForcibly();
        }
        lib.deregMr(stagingMr.mr());
        assertArrayEquals(baseline, census(), "this process's MRs, CQs, QPs, SRQs, AHs back to baseline");
        assertEquals(0, lib.deallocPd(pd));
        assertEquals(0, lib.closeDevice(ctx));
        list.close();
        arena.close();
        mlx5.close();
        lib.close();
    }

    private static MethodHandle liveObjects;

    private static int[] census() throws Throwable {
        if (liveObjects == null) {
            SymbolLookup l = SymbolLookup.libraryLookup(Path.of(SoftVerbs.library()), Arena.global());
            liveObjects = Linker.nativeLinker().downcallHandle(l.find("softverbs_live_objects").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        }
        int[] out = new int[5];
        int[] kinds = {2, 3, 4, 7, 8};
        for (int i = 0; i < kinds.length; i++) {
            out[i] = (int) liveObjects.invokeExact(kinds[i]);
        }
        return out;
    }

    /** A descriptor as the facade reads it (objrdma-wire's parser), as a DC target address. */
    private static DcTargetAddress toTarget(CuObjDescriptor d) {
        DcPeer peer = d.hasGid() ? new DcPeer(true, d.gid(), 0) : new DcPeer(false, Gid.ZERO, d.lid());
        return new DcTargetAddress(peer, d.targetNumber(), d.remoteAddress(), d.regionSize(), d.rkey());
    }

    private String ask(String command) throws Exception {
        to.println(command);
        String answer = from.readLine();
        assertTrue(answer != null, "the client process ended");
        return answer;
    }

    private static String sha256(MemorySegment s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.toArray(JAVA_BYTE)));
    }

    private static void fill(MemorySegment s, long seed) {
        byte[] b = new byte[(int) s.byteSize()];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(b, 0, s, JAVA_BYTE, 0, b.length);
    }

    @Test
    void aClientInAnotherProcessIsReachedByteExactRefusedWithAWrongKeyAndMissedWhenKilled() throws Throwable {
        String line = from.readLine();
        assertTrue(line != null && line.startsWith("TARGET "), line);
        String descriptor = line.substring(7);
        assertEquals(81, descriptor.length(), descriptor);
        TokenResult<CuObjDescriptor> parsed = CuObjDescriptor.parse(descriptor);
        assertTrue(parsed.isOk(), () -> parsed.error() + ": " + parsed.detail());
        assertEquals(descriptor, parsed.value().format(), "NVIDIA's format is the facade's, lower case");
        DcTargetAddress target = toTarget(parsed.value());
        try (DcInitiator dc = DcInitiator.open(lib, mlx5, ctx, pd, port, 2, 1)) {
            // GET: 8 MiB staging -> client
            fill(staging, 42);
            DcInitiator.Result w = dc.transfer(target, KEY, true, target.regionAddress(), stagingMr.lkey(),
                    staging.address(), SIZE, TIMEOUT);
            assertEquals(DcInitiator.Outcome.DONE, w.outcome(), "status " + w.wcStatus());
            String written = sha256(staging);
            assertEquals(written, ask("HASH"));

            // the header form with ':addr:size' and a trailing ';': a ranged WRITE of 64 KiB at offset 4096
            String header = descriptor + ":" + Long.toHexString(target.regionAddress() + 4096) + ":10000;";
            CuObjTokenHeader h = CuObjTokenHeader.parse(header).value();
            assertEquals(parsed.value(), h.descriptor());
            CuObjTokenHeader.Span span = h.span().orElseThrow();
            try (Arena piece = Arena.ofConfined()) {
                MemorySegment p = piece.allocate(span.size(), 4096);
                fill(p, 44);
                VerbsLibrary.RegisteredMemory pieceMr = lib.regMr(pd, p, IbvConstants.IBV_ACCESS_LOCAL_WRITE);
                try {
                    DcInitiator.Result ranged = dc.transfer(target, KEY, true, span.address(), pieceMr.lkey(),
                            p.address(), span.size(), TIMEOUT);
                    assertEquals(DcInitiator.Outcome.DONE, ranged.outcome(), "status " + ranged.wcStatus());
                } finally {
                    lib.deregMr(pieceMr.mr());
                }
                MemorySegment.copy(p, 0, staging, 4096, span.size());
            }
            written = sha256(staging);
            assertEquals(written, ask("HASH"));

            // a wrong key: refused, the client's bytes unchanged
            fill(staging, 43);
            DcInitiator.Result refused = dc.transfer(target, KEY ^ 0x10, true, target.regionAddress(),
                    stagingMr.lkey(), staging.address(), SIZE, TIMEOUT);
            assertEquals(DcInitiator.Outcome.REFUSED, refused.outcome());
            assertEquals(written, ask("HASH"));

            // PUT: client -> staging
            assertEquals("FILLED", ask("FILL 7"));
            staging.fill((byte) 0);
            DcInitiator.Result r = dc.transfer(target, KEY, false, target.regionAddress(), stagingMr.lkey(),
                    staging.address(), SIZE, TIMEOUT);
            assertEquals(DcInitiator.Outcome.DONE, r.outcome(), "status " + r.wcStatus());
            try (Arena expect = Arena.ofConfined()) {
                MemorySegment e = expect.allocate(SIZE);
                fill(e, 7);
                assertEquals(-1, staging.mismatch(e));
            }

            // the client is killed: the next request ends without success, the DCI comes back
            peer.destroyForcibly();
            assertTrue(peer.waitFor(30, TimeUnit.SECONDS));
            DcInitiator.Result gone = dc.transfer(target, KEY, true, target.regionAddress(), stagingMr.lkey(),
                    staging.address(), 4096, TIMEOUT);
            assertNotEquals(DcInitiator.Outcome.DONE, gone.outcome(), gone.toString());
            dc.forget(target.peer());
            assertEquals(new DcInitiator.Resources(2, 2, 0, 0), dc.resources());
        }
    }

    @Test
    void aClientKilledWhileItsTransferIsInFlightEndsThatRequestOnceAndTheDciServesAgain() throws Throwable {
        String line = from.readLine();
        assertTrue(line != null && line.startsWith("TARGET "), line);
        DcTargetAddress target = toTarget(CuObjDescriptor.parse(line.substring(7)).value());
        // this process's device executes posted requests on its worker after a delay, as a NIC does: the client is
        // killed after the post and before the bytes move
        boolean deferred = SoftVerbs.setDeferred(true);
        int delay = SoftVerbs.setDelayMicros(1_000_000);
        try (DcInitiator dc = DcInitiator.open(lib, mlx5, ctx, pd, port, 1, 1)) {
            fill(staging, 9);
            java.util.concurrent.CompletableFuture<DcInitiator.Result> inFlight =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return dc.transfer(target, KEY, true, target.regionAddress(), stagingMr.lkey(),
                                    staging.address(), SIZE, TIMEOUT);
                        } catch (Exception e) {
                            throw new java.util.concurrent.CompletionException(e);
                        }
                    });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (SoftVerbs.pending() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(SoftVerbs.pending() > 0, "the WRITE was posted and waits on the device's worker");
            peer.destroyForcibly();
            assertTrue(peer.waitFor(30, TimeUnit.SECONDS));
            DcInitiator.Result r = inFlight.get(60, TimeUnit.SECONDS);
            assertEquals(DcInitiator.Outcome.UNREACHABLE, r.outcome(), r.toString());
            assertEquals(new DcInitiator.Resources(1, 1, 0, 1), dc.resources(), "one DCI, back in the pool");
            dc.forget(target.peer());
            assertEquals(0, dc.resources().addressHandles());
        } finally {
            SoftVerbs.setDelayMicros(delay);
            SoftVerbs.setDeferred(deferred);
        }
    }

    /**
     * The client JVM: a DC target over {@code SIZE} bytes keyed with {@code KEY}; prints {@code TARGET <descriptor>},
     * then answers {@code HASH} with the buffer's SHA-256 and {@code FILL <seed>} by filling it ({@code FILLED}).
     */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        VerbsLibrary lib = VerbsLibrary.load(SoftVerbs.library());
        Mlx5DvLibrary mlx5 = Mlx5DvLibrary.load(SoftVerbs.library());
        try (VerbsLibrary.DeviceList list = lib.listDevices(); Arena arena = Arena.ofShared()) {
            MemorySegment ctx = lib.openDevice(list.devices().getFirst());
            MemorySegment pd = lib.allocPd(ctx);
            PortAttributes p = lib.queryPort(ctx, 1);
            MemorySegment buffer = arena.allocate(SIZE, 4096);
            try (DcTarget target = DcTarget.open(lib, mlx5, ctx, pd, new DcPort(1, p.activeMtu(), false, 0), p.lid(),
                    lib.queryGid(ctx, 1, 0), buffer, KEY)) {
                System.out.println("TARGET " + target.descriptor());
                System.out.flush();
                String command;
                while ((command = in.readLine()) != null) {
                    if (command.equals("HASH")) {
                        System.out.println(sha256(buffer));
                    } else if (command.startsWith("FILL ")) {
                        fill(buffer, Long.parseLong(command.substring(5)));
                        System.out.println("FILLED");
                    }
                    System.out.flush();
                }
            }
            lib.deallocPd(pd);
            lib.closeDevice(ctx);
        }
    }
}
