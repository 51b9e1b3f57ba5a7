package org.objrdma.cuobj.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.wire.AgentKeys;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * What the default 128 channels cost: heap of a started server with none and with all 128 channels allocated
 * (the average over many servers, after full GCs), live threads and off-heap memory they add. Connections to
 * client agents are not channels: each costs one transport channel (a socket and two threads) and is counted
 * separately in the README. {@code bench.sh} runs it.
 */
public final class ChannelMemoryReport {
    private static final int SERVERS = 200;

    private ChannelMemoryReport() {
    }

    public static void main(String[] args) throws Exception {
        try (TcpTransport t = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP)) {
            CuObjRDMATunable tunable = new CuObjRDMATunable();
            tunable.setAgentKey(AgentKeys.generate());
            tunable.setAllowAddresses("127.0.0.0/8,::1"); // the client agents listen on loopback
            MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            long offHeapBefore = directAndMapped();

            long base = usedHeap(mem);
            CuObjServer[] servers = new CuObjServer[SERVERS];
            for (int i = 0; i < SERVERS; i++) {
                servers[i] = new CuObjServer(t, "127.0.0.1", 0, CuObj.CUOBJ_PROTO_RDMA_DC_V1, tunable);
            }
            long started = usedHeap(mem);
            for (CuObjServer s : servers) {
                for (int c = 0; c < CuObj.DEFAULT_NUM_DCIS; c++) {
                    s.allocateChannelId();
                }
            }
            long allocated = usedHeap(mem);
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
            long offHeapAfter = directAndMapped();
            System.out.printf("cuobj memory: a started server, no channel allocated: %d bytes of heap%n",
                    (started - base) / SERVERS);
            System.out.printf("cuobj memory: 128 channels allocated: %d bytes of heap more (%d bytes per channel)%n",
                    (allocated - started) / SERVERS, (allocated - started) / SERVERS / CuObj.DEFAULT_NUM_DCIS);
            System.out.printf("cuobj memory: threads added: %d, off-heap (direct + mapped pools) added: %d bytes%n",
                    threadsAfter - threadsBefore, offHeapAfter - offHeapBefore);
            for (CuObjServer s : servers) {
                s.close();
            }
        }
        connections();
    }

    /** Heap and threads of connections to client agents: both ends live in this JVM, so both are counted. */
    private static void connections() throws Exception {
        int n = 32;
        try (BenchRig rig = new BenchRig(4096L * n, n)) {
            MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
            org.objrdma.cuobj.RdmaBuffer buf = rig.server.registerBuffer(rig.serverMemory, 4096);
            int ch = rig.server.allocateChannelId();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            long before = usedHeap(mem);
            for (int lane = 0; lane < n; lane++) {
                long r = rig.server.handleGetObject("c", buf, rig.clientAddress(0), 4096,
                        rig.descriptor(org.objrdma.api.session.Op.GET, 0, 4096, lane), ch);
                if (r != 4096) {
                    throw new IllegalStateException("transfer failed: " + r);
                }
            }
            long after = usedHeap(mem);
            System.out.printf("cuobj memory: one connection to a client agent (server and client ends): %d bytes of"
                    + " heap, %d threads%n", (after - before) / n, (ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore) / n);
        }
    }

    private static long usedHeap(MemoryMXBean mem) throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return mem.getHeapMemoryUsage().getUsed();
    }

    private static long directAndMapped() {
        long total = 0;
        for (var pool : ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            total += pool.getMemoryUsed();
        }
        return total;
    }
}
