package org.objrdma.transport.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.tck.TransportContractTest.TransportPair;

/**
 * The grant rules every {@link Transport} must keep ({@link MemoryGrant}, {@link Channel#grant}): a peer reaches
 * a local-only region only through a grant made on its own channel, only inside the grant's slice, only with the
 * grant's access, and only until the grant is revoked or its channel is reset or closed. Every refusal completes
 * the requester with {@link WcStatus#REM_ACCESS_ERR} and leaves the target memory exactly as it was, which each
 * test checks byte by byte (the slice, and guard bytes on both sides of it).
 *
 * <p>The owner of the memory is always the responder: it registers the region local-only and grants on its end
 * of a connected pair. A transport module extends this class in its tests, as it does
 * {@link TransportContractTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GrantContractTest {

    /** Bytes of the registered region; the slice sits in its middle. */
    private static final int REGION = 64 * 1024;
    private static final int SLICE_OFFSET = 16 * 1024;
    private static final int SLICE = 8 * 1024;
    private static final byte UNTOUCHED = (byte) 0x5A;

    /** Gives the transports under test; called once per test class. */
    protected abstract TransportPair openTransports() throws Exception;

    /** Options of every channel the suite opens. */
    protected ChannelOptions channelOptions() {
        return ChannelOptions.DEFAULT;
    }

    /**
     * True if the transport refuses a grant's rkey on every channel but its own. A verbs device without type-2B
     * memory windows makes grants by registering the slice, which any queue pair of the protection domain can
     * use; such a transport answers false and the cross-channel test is skipped, with that reason.
     */
    protected boolean bindsGrantsToOneChannel() {
        return true;
    }

    private TransportPair transports;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @BeforeAll
    final void openTransportsOnce() throws Exception {
        transports = openTransports();
    }

    @AfterAll
    final void closeTransportsOnce() throws Exception {
        if (transports != null) {
            transports.cleanup().close();
        }
    }

    /** Channels first, then grants, regions and memory, newest first. */
    @AfterEach
    final void closeTestResources() {
        List<AutoCloseable> order = new ArrayList<>();
        toClose.stream().filter(r -> r instanceof Channel).forEach(order::add);
        toClose.stream().filter(r -> !(r instanceof Channel)).forEach(order::add);
        toClose.clear();
        for (AutoCloseable r : order) {
            try {
                r.close();
            } catch (Exception e) {
                // already closed or revoked: nothing left to free
            }
        }
    }

    // ------------------------------------------------------------------ fixtures

    private <T extends AutoCloseable> T later(T resource) {
        toClose.push(resource);
        return resource;
    }

    /** The memory a grant opens: a region of {@link #REGION} bytes all {@link #UNTOUCHED}, local-only. */
    private record Target(MemorySegment memory, MemoryRegion region) {
        boolean untouched() {
            return TransportContractTest.allBytesAre(memory, 0, REGION, UNTOUCHED);
        }
    }

    private Target localOnlyTarget() throws TransportException {
        MemorySegment memory = later(Arena.ofShared()).allocate(REGION, 4096);
        memory.fill(UNTOUCHED);
        MemoryRegion region = later(transports.responder().register(memory, EnumSet.of(Access.LOCAL_WRITE)));
        return new Target(memory, region);
    }

    /** A requester-side buffer of {@code size} bytes with a pattern, registered for local write. */
    private MemoryRegion source(int size, long seed) throws TransportException {
        MemorySegment memory = later(Arena.ofShared()).allocate(size, 4096);
        TransportContractTest.fillPattern(memory, 0, size, seed);
        return later(transports.requester().register(memory, EnumSet.of(Access.LOCAL_WRITE)));
    }

    /** [requester channel, responder channel], both connected. */
    private Channel[] connectedPair() throws Exception {
        Channel a = later(transports.requester().openChannel(channelOptions()));
        Channel b = later(transports.responder().openChannel(channelOptions()));
        CompletableFuture<Void> other = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                b.connect(a.localEndpoint());
                other.complete(null);
            } catch (Throwable e) {
                other.completeExceptionally(e);
            }
        });
        a.connect(b.localEndpoint());
        other.get(30, TimeUnit.SECONDS);
        return new Channel[] {a, b};
    }

    private MemoryGrant grant(Channel on, Target t, long offset, long length, Access... access)
            throws TransportException {
        return later(on.grant(t.region(), offset, length, EnumSet.copyOf(List.of(access))));
    }

    private static Completion complete(Channel channel, WorkRequest request) throws Exception {
        channel.post(request);
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (channel.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no completion on channel " + channel.id());
            }
            TimeUnit.MICROSECONDS.sleep(100);
        }
        return out[0];
    }

    private static WorkRequest write(MemoryRegion from, int length, long address, int rkey) {
        return WorkRequest.write(1, new ScatterGatherEntry(from, 0, length), address, rkey);
    }

    private static WorkRequest read(MemoryRegion into, int length, long address, int rkey) {
        return WorkRequest.read(2, new ScatterGatherEntry(into, 0, length), address, rkey);
    }

    private static void assertRefused(Completion c) {
        assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), () -> "expected REM_ACCESS_ERR, got " + c);
    }

    // ------------------------------------------------------------------ what a grant allows

    @Test
    void grantedSliceCanBeWrittenAndRead() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        assertEquals(t.region().address() + SLICE_OFFSET, g.address());
        assertEquals(ch[1].id(), g.channelId());
        assertTrue(g.isValid());
        assertNotEquals(t.region().rkey(), g.rkey(), "a grant has a key of its own");
        MemoryRegion src = source(SLICE, 11);

        assertEquals(WcStatus.SUCCESS, complete(ch[0], write(src, SLICE, g.address(), g.rkey())).status());
        assertEquals(TransportContractTest.checksum(src.segment(), 0, SLICE),
                TransportContractTest.checksum(t.memory(), SLICE_OFFSET, SLICE));
        assertTrue(TransportContractTest.allBytesAre(t.memory(), 0, SLICE_OFFSET, UNTOUCHED), "guard before");
        assertTrue(TransportContractTest.allBytesAre(t.memory(), SLICE_OFFSET + SLICE,
                REGION - SLICE_OFFSET - SLICE, UNTOUCHED), "guard after");

        MemoryRegion back = source(SLICE, 0);
        assertEquals(WcStatus.SUCCESS, complete(ch[0], read(back, SLICE - 100, g.address() + 100, g.rkey())).status());
        assertEquals(TransportContractTest.checksum(src.segment(), 100, SLICE - 100),
                TransportContractTest.checksum(back.segment(), 0, SLICE - 100));
    }

    /**
     * {@link Channel#grantOpaque}: whatever address the grant answers (an opaque base on TCP, the slice's address on
     * verbs) is the one that reaches the slice's first byte, with the grant's bounds; on a transport whose base is
     * opaque, the slice's real address with the grant's key reaches nothing.
     */
    @Test
    void anOpaqueGrantIsReachedAtItsOwnAddressOnlyAndBoundsCheckedAsAnyGrant() throws Exception {
        Target t = localOnlyTarget();
        MemoryRegion src = source(SLICE + 1, 19);
        long real = t.region().address() + SLICE_OFFSET;
        Channel[] ch = connectedPair();
        MemoryGrant g = later(ch[1].grantOpaque(t.region(), SLICE_OFFSET, SLICE, EnumSet.of(Access.REMOTE_WRITE,
                Access.REMOTE_READ)));
        if (g.address() != real) {
            assertRefused(complete(ch[0], write(src, SLICE, real, g.rkey())));
            assertTrue(t.untouched(), "the real address with the opaque grant's key wrote nothing");
            ch = connectedPair();
            g = later(ch[1].grantOpaque(t.region(), SLICE_OFFSET, SLICE, EnumSet.of(Access.REMOTE_WRITE,
                    Access.REMOTE_READ)));
        }
        assertRefused(complete(ch[0], write(src, 1, g.address() - 1, g.rkey())));
        assertTrue(t.untouched(), "the byte before the base");
        ch = connectedPair();
        g = later(ch[1].grantOpaque(t.region(), SLICE_OFFSET, SLICE, EnumSet.of(Access.REMOTE_WRITE,
                Access.REMOTE_READ)));
        assertRefused(complete(ch[0], write(src, SLICE + 1, g.address(), g.rkey())));
        assertTrue(t.untouched(), "one byte too long");
        ch = connectedPair();
        g = later(ch[1].grantOpaque(t.region(), SLICE_OFFSET, SLICE, EnumSet.of(Access.REMOTE_WRITE,
                Access.REMOTE_READ)));
        assertEquals(WcStatus.SUCCESS, complete(ch[0], write(src, SLICE, g.address(), g.rkey())).status());
        assertEquals(TransportContractTest.checksum(src.segment(), 0, SLICE),
                TransportContractTest.checksum(t.memory(), SLICE_OFFSET, SLICE), "the bytes landed in the slice");
        assertTrue(TransportContractTest.allBytesAre(t.memory(), 0, SLICE_OFFSET, UNTOUCHED), "guard before");
        MemoryRegion back = source(SLICE, 0);
        assertEquals(WcStatus.SUCCESS, complete(ch[0], read(back, SLICE - 100, g.address() + 100, g.rkey())).status());
        assertEquals(TransportContractTest.checksum(src.segment(), 100, SLICE - 100),
                TransportContractTest.checksum(back.segment(), 0, SLICE - 100));
    }

    @Test
    void localOnlyRegionIsUnreachableWithItsOwnKey() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE); // a grant exists, but the region key is not it
        MemoryRegion src = source(SLICE, 12);
        assertRefused(complete(ch[0], write(src, SLICE, t.region().address() + SLICE_OFFSET, t.region().rkey())));
        assertTrue(t.untouched());
        assertEquals(ChannelState.ERROR, ch[0].state());
        // and a channel in ERROR makes no grant: it must be reset first
        assertError(TransportError.WRONG_STATE, () -> ch[0].grant(src, 0, 16, EnumSet.of(Access.REMOTE_READ)));
    }

    // ------------------------------------------------------------------ the binding to one channel

    @Test
    void grantOfAnotherChannelIsRefused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(bindsGrantsToOneChannel(),
                "grants of this transport are slice registrations, not bound to one channel");
        Channel[] owner = connectedPair();
        Channel[] intruder = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(owner[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        MemoryRegion src = source(SLICE, 13);

        assertRefused(complete(intruder[0], write(src, SLICE, g.address(), g.rkey())));
        assertTrue(t.untouched(), "nothing written through another channel");
        Channel[] reader = connectedPair();
        MemoryRegion back = source(SLICE, 0);
        long before = TransportContractTest.checksum(back.segment(), 0, SLICE);
        assertRefused(complete(reader[0], read(back, SLICE, g.address(), g.rkey())));
        assertEquals(before, TransportContractTest.checksum(back.segment(), 0, SLICE), "nothing read either");

        // the owner's own peer still gets in: the refusals were about the channel, not the grant
        assertEquals(WcStatus.SUCCESS, complete(owner[0], write(src, SLICE, g.address(), g.rkey())).status());
    }

    // ------------------------------------------------------------------ the slice and the access

    @Test
    void accessOutsideTheSliceIsRefused() throws Exception {
        Target t = localOnlyTarget();
        MemoryRegion src = source(SLICE + 2, 14);
        long[][] ranges = {
                {SLICE_OFFSET - 1, 1},            // the byte before
                {SLICE_OFFSET + SLICE, 1},        // the byte after
                {SLICE_OFFSET - 1, SLICE},        // straddles the start
                {SLICE_OFFSET + 1, SLICE},        // straddles the end
                {SLICE_OFFSET, SLICE + 1},        // one too long
        };
        for (long[] r : ranges) {
            Channel[] ch = connectedPair();
            MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
            long address = t.region().address() + r[0];
            assertRefused(complete(ch[0], write(src, (int) r[1], address, g.rkey())));
            assertTrue(t.untouched(), () -> "nothing written for range +" + r[0] + "/" + r[1]);
        }
    }

    @Test
    void accessTheGrantLacksIsRefused() throws Exception {
        Target t = localOnlyTarget();
        MemoryRegion src = source(SLICE, 15);
        Channel[] ch = connectedPair();
        MemoryGrant readOnly = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_READ);
        assertRefused(complete(ch[0], write(src, SLICE, readOnly.address(), readOnly.rkey())));
        assertTrue(t.untouched(), "a read grant lets nothing be written");

        Channel[] ch2 = connectedPair();
        MemoryGrant writeOnly = grant(ch2[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
        MemoryRegion back = source(SLICE, 16);
        long before = TransportContractTest.checksum(back.segment(), 0, SLICE);
        assertRefused(complete(ch2[0], read(back, SLICE, writeOnly.address(), writeOnly.rkey())));
        assertEquals(before, TransportContractTest.checksum(back.segment(), 0, SLICE), "a write grant reads nothing");
        assertTrue(t.untouched());
    }

    // ------------------------------------------------------------------ the end of a grant

    @Test
    void revokedGrantIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
        MemoryRegion first = source(SLICE, 17);
        assertEquals(WcStatus.SUCCESS, complete(ch[0], write(first, SLICE, g.address(), g.rkey())).status());
        long written = TransportContractTest.checksum(t.memory(), 0, REGION);

        g.revoke();
        g.revoke(); // idempotent
        assertFalse(g.isValid());
        MemoryRegion second = source(SLICE, 18);
        assertRefused(complete(ch[0], write(second, SLICE, g.address(), g.rkey())));
        assertEquals(written, TransportContractTest.checksum(t.memory(), 0, REGION), "nothing lands after revoke");
    }

    @Test
    void grantsEndWithTheirChannel() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
        ch[1].close();
        assertFalse(g.isValid(), "closing the channel revokes its grants");
        g.revoke(); // harmless afterwards

        Channel[] next = connectedPair();
        MemoryRegion src = source(SLICE, 19);
        assertRefused(complete(next[0], write(src, SLICE, g.address(), g.rkey())));
        assertTrue(t.untouched());
    }

    @Test
    void grantsEndWithAReset() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
        ch[1].reset();
        assertFalse(g.isValid(), "a reset channel may next serve another peer: its grants are gone");
    }

    @Test
    void grantsEndWithTheirRegion() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        MemoryGrant g = grant(ch[1], t, SLICE_OFFSET, SLICE, Access.REMOTE_WRITE);
        t.region().close();
        assertFalse(g.isValid());
        MemoryRegion src = source(SLICE, 20);
        assertRefused(complete(ch[0], write(src, SLICE, g.address(), g.rkey())));
        assertTrue(t.untouched());
    }

    // ------------------------------------------------------------------ bad arguments change nothing

    @Test
    void badGrantsAreRefusedSynchronously() throws Exception {
        Channel[] ch = connectedPair();
        Target t = localOnlyTarget();
        Set<Access> rw = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);
        assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(t.region(), -1, 10, rw));
        assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(t.region(), 0, 0, rw));
        assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(t.region(), REGION - 10, 11, rw));
        assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(t.region(), 0, Long.MAX_VALUE, rw));
        assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(t.region(), 0, 10, EnumSet.noneOf(Access.class)));
        assertError(TransportError.INVALID_ARGUMENT,
                () -> ch[1].grant(t.region(), 0, 10, EnumSet.of(Access.LOCAL_WRITE)));
        // a region of the other transport
        MemoryRegion foreign = source(4096, 1);
        if (transports.requester() != transports.responder()) {
            assertError(TransportError.INVALID_ARGUMENT, () -> ch[1].grant(foreign, 0, 10, rw));
        }
        // REMOTE_WRITE needs LOCAL_WRITE on the region
        MemorySegment ro = later(Arena.ofShared()).allocate(4096, 4096);
        ro.fill(UNTOUCHED);
        MemoryRegion readable = later(transports.responder().register(ro, EnumSet.of(Access.REMOTE_READ)));
        assertError(TransportError.INVALID_ARGUMENT,
                () -> ch[1].grant(readable, 0, 10, EnumSet.of(Access.REMOTE_WRITE)));
        // closed region, closed channel
        MemorySegment other = later(Arena.ofShared()).allocate(4096, 4096);
        MemoryRegion closed = transports.responder().register(other, EnumSet.of(Access.LOCAL_WRITE));
        closed.close();
        assertError(TransportError.CLOSED, () -> ch[1].grant(closed, 0, 10, rw));
        Channel gone = transports.responder().openChannel(channelOptions());
        gone.close();
        assertError(TransportError.CLOSED, () -> gone.grant(t.region(), 0, 10, rw));

        // none of that left a grant behind: the peer still cannot get in with a made-up grant key
        MemoryRegion src = source(SLICE, 21);
        assertRefused(complete(ch[0], write(src, 16, t.region().address(), t.region().rkey() | 1)));
        assertTrue(t.untouched());
    }

    private interface Call {
        void run() throws TransportException;
    }

    private static void assertError(TransportError expected, Call call) {
        TransportException e = assertThrows(TransportException.class, call::run);
        assertEquals(expected, e.error(), e::getMessage);
    }
}
