package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.Errno;

/**
 * The C-style constructors take transport and agent key from the active DS component only (issue 29: no static
 * mutable defaults). Outside a framework there is none: such a server starts its session but has no transport,
 * whatever another server in the same JVM was given.
 */
class ContainerDefaultsTest {

    @Test
    void outsideAContainerACStyleServerHasNoTransportEvenBesideAServerWithOne() throws Exception {
        byte[] key = AgentKeys.generate();
        CuObjRDMATunable keyed = new CuObjRDMATunable();
        keyed.setAgentKey(key);
        try (TcpTransport tcp = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
             CuObjServer explicit = new CuObjServer(tcp, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, keyed);
             CuObjServer classic = new CuObjServer("127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1)) {
            assertTrue(explicit.isConnected());
            CuObjService service = explicit; // what the gateway binds
            assertEquals(0, service.allocateChannelId());

            assertFalse(classic.isConnected());
            assertNull(classic.transport());
            assertEquals(0, classic.startRDMASession(), "the session itself starts, in per-principal mode");
            MemorySegment host = classic.allocHostBuffer(4096);
            assertNull(classic.registerBuffer(host, 4096), "no device without a transport");
            int ch = classic.allocateChannelId();
            assertEquals(-Errno.ENODEV, classic.handleGetObject("k", null, 1, 1, "x", ch));
        }
    }
}
