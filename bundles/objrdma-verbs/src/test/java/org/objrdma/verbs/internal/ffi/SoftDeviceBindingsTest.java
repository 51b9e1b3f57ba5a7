package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The bindings verb by verb against the software device: device, port, GID, PD, MR, completion channel and
 * CQ, an RC queue pair through RESET → INIT → RTR → RTS → ERR → RESET, and the data path through the ops
 * table — including what the device refuses.
 */
class SoftDeviceBindingsTest {
    private VerbsLibrary lib;
    private VerbsLibrary.DeviceList list;
    private MemorySegment ctx;
    private Arena arena;

    @BeforeEach
    void open() throws Exception {
        lib = VerbsLibrary.load(SoftVerbs.library());
        assertTrue(lib.isAvailable(), () -> lib.unavailabilityCause().orElse(""));
        list = lib.listDevices();
        ctx = lib.openDevice(list.devices().getFirst());
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        arena.close();
        assertEquals(0, lib.closeDevice(ctx));
        list.close();
        lib.close();
    }

    @Test
    void deviceListNamesTheSoftwareDevice() {
        VerbsLibrary.DeviceEntry dev = list.devices().getFirst();
        assertEquals("softrc0", dev.name());
        assertEquals(0x0002c90300abcdefL, dev.nodeGuid());
    }

    @Test
    void deviceAndPortAttributes() throws Exception {
        DeviceAttributes d = lib.queryDevice(ctx);
        assertEquals(0x0002c90300abcdefL, d.nodeGuid());
        assertEquals(1, d.physPortCount());
        assertTrue(d.maxQp() > 0 && d.maxMr() > 0 && d.maxCqe() > 0, d.toString());
        assertTrue(d.firmwareVersion().contains("softverbs"), d.firmwareVersion());

        PortAttributes p = lib.queryPort(ctx, 1);
        assertEquals(4, p.state(), "ACTIVE");
        assertEquals(5, p.activeMtu(), "4096");
        assertEquals(1, p.lid());
        assertEquals(IbvConstants.IBV_LINK_LAYER_INFINIBAND, p.linkLayer());
        assertTrue(p.gidTableLength() >= 1);

        VerbsException e = assertThrows(VerbsException.class, () -> lib.queryPort(ctx, 2));
        assertEquals("ibv_query_port", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void gidZeroIsTheLinkLocalGid() throws Exception {
        Gid gid = lib.queryGid(ctx, 1, 0);
        assertEquals("fe800000000000000002c90300abcdef", gid.toHex());
        assertThrows(VerbsException.class, () -> lib.queryGid(ctx, 1, 100000));
    }

    @Test
    void memoryRegistrationOverASegment() throws Exception {
        MemorySegment pd = lib.allocPd(ctx);
        MemorySegment memory = arena.allocate(4096, 4096);
        VerbsLibrary.RegisteredMemory mr = lib.regMr(pd, memory, IbvConstants.IBV_ACCESS_LOCAL_WRITE
                | IbvConstants.IBV_ACCESS_REMOTE_WRITE);
        assertEquals(memory.address(), mr.address());
        assertEquals(4096, mr.length());
        assertNotEquals(mr.lkey(), mr.rkey());
        assertEquals(Errno.EBUSY, lib.deallocPd(pd), "a PD with a region must refuse to go");
        assertEquals(0, lib.deregMr(mr.mr()));
        assertEquals(0, lib.deallocPd(pd));
    }

    @Test
    void registrationErrorsCarryTheErrno() throws Exception {
        MemorySegment pd = lib.allocPd(ctx);
        // REMOTE_WRITE without LOCAL_WRITE is invalid in verbs
        VerbsException e = assertThrows(VerbsException.class,
                () -> lib.regMr(pd, arena.allocate(64), IbvConstants.IBV_ACCESS_REMOTE_WRITE));
        assertEquals("ibv_reg_mr", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(0, lib.deallocPd(pd));
    }

    @Test
    void completionChannelFiresForAnArmedQueue() throws Exception {
        MemorySegment channel = lib.createCompChannel(ctx);
        MemorySegment cq = lib.createCq(ctx, 16, channel);
        DataPath dp = lib.dataPath(ctx);
        MemorySegment pd = lib.allocPd(ctx);
        QpPair pair = QpPair.connect(lib, pd, cq);
        assertEquals(0, dp.reqNotifyCq(cq, false));

        MemorySegment buf = arena.allocate(64, 64);
        VerbsLibrary.RegisteredMemory mr = lib.regMr(pd, buf, IbvConstants.IBV_ACCESS_LOCAL_WRITE
                | IbvConstants.IBV_ACCESS_REMOTE_WRITE);
        MemorySegment wr = writeRequest(arena, 7, buf, mr, mr.address(), mr.rkey(), true);
        assertEquals(0, dp.postSend(pair.a, wr, arena.allocate(ADDRESS)));

        MemorySegment fired = lib.getCqEvent(channel); // would block forever if the event never came
        assertEquals(cq.address(), fired.address());
        lib.ackCqEvents(cq, 1);
        MemorySegment wc = arena.allocate(IbvLayouts.IBV_WC);
        assertEquals(1, dp.pollCq(cq, 1, wc));
        assertEquals(7, wc.get(JAVA_LONG, 0));
        assertEquals(0, wc.get(JAVA_INT, IbvLayouts.offset(IbvLayouts.IBV_WC, "status")));

        pair.destroy(lib);
        assertEquals(0, lib.deregMr(mr.mr()));
        assertEquals(Errno.EBUSY, lib.destroyCompChannel(channel), "a channel with a CQ must refuse to go");
        assertEquals(0, lib.destroyCq(cq));
        assertEquals(0, lib.destroyCompChannel(channel));
        assertEquals(0, lib.deallocPd(pd));
    }

    @Test
    void queuePairStateMachineAndItsRefusals() throws Exception {
        MemorySegment pd = lib.allocPd(ctx);
        MemorySegment cq = lib.createCq(ctx, 16, MemorySegment.NULL);
        QpModifier m = new QpModifier(lib);
        VerbsLibrary.CreatedQp qp = lib.createRcQp(pd, new VerbsLibrary.QpRequest(cq, cq, 8, 8, 2, 2, 0));
        assertTrue(qp.qpNum() > 0);
        assertTrue(qp.maxSendWr() >= 8 && qp.maxSendSge() >= 2);
        assertEquals(QpState.RESET, lib.queryQpState(qp.qp()));

        // posting in RESET: EINVAL and bad_wr names the request
        DataPath dp = lib.dataPath(ctx);
        MemorySegment buf = arena.allocate(64, 64);
        VerbsLibrary.RegisteredMemory mr = lib.regMr(pd, buf, IbvConstants.IBV_ACCESS_LOCAL_WRITE);
        MemorySegment wr = writeRequest(arena, 1, buf, mr, buf.address(), mr.rkey(), true);
        MemorySegment bad = arena.allocate(ADDRESS);
        assertEquals(Errno.EINVAL, dp.postSend(qp.qp(), wr, bad));
        assertEquals(wr.address(), bad.get(ADDRESS, 0).address());

        // RESET -> INIT with the state alone lacks the required attributes
        MemorySegment attr = arena.allocate(IbvLayouts.IBV_QP_ATTR);
        attr.set(JAVA_INT, 0, QpState.INIT.code());
        assertEquals(Errno.EINVAL, lib.modifyQp(qp.qp(), attr, IbvConstants.IBV_QP_STATE));
        assertEquals(QpState.RESET, lib.queryQpState(qp.qp()));

        assertEquals(0, m.toInit(qp.qp(), 1, IbvConstants.IBV_ACCESS_REMOTE_WRITE));
        assertEquals(QpState.INIT, lib.queryQpState(qp.qp()));
        assertEquals(0, m.toRtr(qp.qp(), new QpModifier.RtrParams(qp.qpNum(), 0, 5, Gid.ZERO, 1, false, 0, 1, 1, 12)));
        assertEquals(QpState.RTR, lib.queryQpState(qp.qp()));
        assertEquals(0, m.toRts(qp.qp(), new QpModifier.RtsParams(0, 14, 7, 7, 1)));
        assertEquals(QpState.RTS, lib.queryQpState(qp.qp()));
        assertEquals(0, m.toError(qp.qp()));
        assertEquals(QpState.ERR, lib.queryQpState(qp.qp()));
        assertEquals(0, m.toReset(qp.qp()));
        assertEquals(QpState.RESET, lib.queryQpState(qp.qp()));

        assertEquals(0, lib.destroyQp(qp.qp()));
        assertEquals(0, lib.deregMr(mr.mr()));
        assertEquals(0, lib.destroyCq(cq));
        assertEquals(0, lib.deallocPd(pd));
    }

    /** An RDMA WRITE of all of {@code buf} to (remote, rkey). */
    static MemorySegment writeRequest(Arena arena, long wrId, MemorySegment buf, VerbsLibrary.RegisteredMemory mr,
                                      long remote, int rkey, boolean signaled) {
        MemorySegment sge = arena.allocate(IbvLayouts.IBV_SGE);
        sge.set(JAVA_LONG, 0, buf.address());
        sge.set(JAVA_INT, 8, (int) buf.byteSize());
        sge.set(JAVA_INT, 12, mr.lkey());
        MemorySegment wr = arena.allocate(IbvLayouts.IBV_SEND_WR);
        wr.set(JAVA_LONG, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr_id"), wrId);
        wr.set(ADDRESS, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "sg_list"), sge);
        wr.set(JAVA_INT, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "num_sge"), 1);
        wr.set(JAVA_INT, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "opcode"), IbvConstants.IBV_WR_RDMA_WRITE);
        wr.set(JAVA_INT, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "send_flags"),
                signaled ? IbvConstants.IBV_SEND_SIGNALED : 0);
        wr.set(JAVA_LONG, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.remote_addr"), remote);
        wr.set(JAVA_INT, IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.rkey"), rkey);
        buf.fill((byte) 0x5a);
        assertEquals(0x5a, buf.get(JAVA_BYTE, 0));
        return wr;
    }

    /** Two RC queue pairs on one CQ, connected to each other (LID-routed, like the software device's IB port). */
    record QpPair(MemorySegment a, MemorySegment b) {
        static QpPair connect(VerbsLibrary lib, MemorySegment pd, MemorySegment cq) throws VerbsException {
            QpModifier m = new QpModifier(lib);
            VerbsLibrary.CreatedQp a = lib.createRcQp(pd, new VerbsLibrary.QpRequest(cq, cq, 8, 8, 1, 1, 0));
            VerbsLibrary.CreatedQp b = lib.createRcQp(pd, new VerbsLibrary.QpRequest(cq, cq, 8, 8, 1, 1, 0));
            int access = IbvConstants.IBV_ACCESS_LOCAL_WRITE | IbvConstants.IBV_ACCESS_REMOTE_WRITE
                    | IbvConstants.IBV_ACCESS_REMOTE_READ;
            for (VerbsLibrary.CreatedQp[] p : new VerbsLibrary.CreatedQp[][] {{a, b}, {b, a}}) {
                assertEquals(0, m.toInit(p[0].qp(), 1, access));
                assertEquals(0, m.toRtr(p[0].qp(),
                        new QpModifier.RtrParams(p[1].qpNum(), 0, 5, Gid.ZERO, 1, false, 0, 1, 1, 12)));
                assertEquals(0, m.toRts(p[0].qp(), new QpModifier.RtsParams(0, 14, 7, 7, 1)));
            }
            return new QpPair(a.qp(), b.qp());
        }

        void destroy(VerbsLibrary lib) {
            assertEquals(0, lib.destroyQp(a));
            assertEquals(0, lib.destroyQp(b));
        }
    }
}
