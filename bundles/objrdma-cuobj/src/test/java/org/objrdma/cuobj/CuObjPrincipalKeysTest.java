package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.Errno;

/**
 * Issue 12, finding 2 (the shared agent key): with per-principal keys ({@code AgentKeys.forPrincipal} of each
 * client's S3 secret) the server dials an agent only with the key of the principal it serves. Client B's lane
 * refuses the server dialing with A's key (A's request carrying B's descriptor: {@code -EIO}, status
 * RETRY_EXC_ERR as for any failed dial), B's memory stays as it was, a connection the server keeps to A's lane is never reused for B's
 * request, and the shared {@code agent.key} (the cuObjServer-compatible overloads) reaches neither lane.
 */
class CuObjPrincipalKeysTest {
    private static final int SIZE = 64 * 1024;
    private static final String SECRET_A = "secret-of-principal-a";
    private static final String SECRET_B = "secret-of-principal-b";

    private TcpTransport serverTransport;
    private InProcessClient clientA;
    private InProcessClient clientB;
    private CuObjServer server;
    private Arena arena;
    private RdmaBuffer buffer;
    private final CuObjPrincipal principalA = CuObjPrincipal.fromCredential("AKIDPRINCIPALA", SECRET_A);
    private final CuObjPrincipal principalB = CuObjPrincipal.fromCredential("AKIDPRINCIPALB", SECRET_B);

    @BeforeEach
    void start() throws Exception {
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientA = new InProcessClient(AgentKeys.forPrincipal(SECRET_A), SIZE, 1);
        clientB = new InProcessClient(AgentKeys.forPrincipal(SECRET_B), SIZE, 1);
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(AgentKeys.generate()); // the shared key of the compatible overloads: neither client has it
        t.setAllowAddresses(Patterns.LOOPBACK);
        server = new CuObjServer(serverTransport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, t);
        arena = Arena.ofShared();
        MemorySegment serverMemory = arena.allocate(SIZE, 4096);
        serverMemory.fill((byte) 0x5a);
        buffer = server.registerBuffer(serverMemory, SIZE);
        assertEquals(0, server.allocateChannelId());
    }

    @AfterEach
    void stop() {
        server.close();
        clientA.close();
        clientB.close();
        serverTransport.close();
        arena.close();
    }

    @Test
    void eachPrincipalsKeyOpensOnlyItsOwnLane() throws Exception {
        clientB.memory.segment().fill((byte) 0x11);
        int[] status = new int[1];
        // A's request with A's descriptor: served, and the connection to A's lane is now cached
        assertEquals(SIZE, server.handleGetObject(principalA, "a", buffer, clientA.addr(0), SIZE,
                clientA.get(0, SIZE), 0, 0, status, null));
        assertEquals((byte) 0x5a, clientA.memory.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));

        // A's request carrying B's descriptor: the server dials B's lane with A's key and B's agent refuses
        String bDescriptor = clientB.get(0, SIZE);
        assertEquals(-Errno.EIO, server.handleGetObject(principalA, "a-at-b", buffer, clientB.addr(0), SIZE,
                bDescriptor, 0, 0, status, null));
        // the agent refused the key; answered as any failed dial, so it tells no agent from another port (issue 24)
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), status[0], "the agent refused the key");
        assertEquals(-1, clientB.memory.segment().mismatch(filled(SIZE, (byte) 0x11)), "B's memory unchanged");

        // B's request carrying A's descriptor: A's cached connection is not reused for another principal
        assertEquals(-Errno.EIO, server.handleGetObject(principalB, "b-at-a", buffer, clientA.addr(0), SIZE,
                clientA.get(0, SIZE), 0, 0, status, null));
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), status[0]);

        // the shared key of the compatible overloads reaches neither lane
        assertEquals(-Errno.EIO, server.handleGetObject("shared", buffer, clientB.addr(0), SIZE, bDescriptor, 0));

        // B with its own key: served
        assertEquals(SIZE, server.handleGetObject(principalB, "b", buffer, clientB.addr(0), SIZE,
                clientB.get(0, SIZE), 0, 0, status, null));
        assertEquals(-1, clientB.memory.segment().mismatch(filled(SIZE, (byte) 0x5a)));
        assertEquals(SIZE, server.handlePutObject(principalB, "b-put", buffer, clientB.addr(0), SIZE,
                clientB.put(0, SIZE), 0));
    }

    @Test
    void aMissingPrincipalIsEinvalAndBadPrincipalsAreRefused() throws Exception {
        assertEquals(-Errno.EINVAL, server.handleGetObject((CuObjPrincipal) null, "k", buffer, clientA.addr(0), SIZE,
                clientA.get(0, SIZE), 0));
        assertEquals(-Errno.EINVAL, server.handlePutObject((CuObjPrincipal) null, "k", buffer, clientA.addr(0), SIZE,
                clientA.put(0, SIZE), 0));
        assertThrows(IllegalArgumentException.class, () -> CuObjPrincipal.fromCredential("", SECRET_A));
        assertThrows(IllegalArgumentException.class, () -> CuObjPrincipal.fromCredential("AKID", ""));
        assertThrows(IllegalArgumentException.class,
                () -> CuObjPrincipal.of(PrincipalId.fromCanonical("x"), new byte[8]));
        assertEquals(CuObjPrincipal.of(principalA.id(), AgentKeys.forPrincipal(SECRET_A)), principalA);
    }

    @Test
    void withoutASharedKeyTheServerRunsPerPrincipalAndTheCompatibleOverloadsAreEinval() throws Exception {
        CuObjRDMATunable t = new CuObjRDMATunable(); // no agent key, no default key
        t.setAllowAddresses(Patterns.LOOPBACK);
        try (CuObjServer perPrincipal = new CuObjServer(serverTransport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, t)) {
            assertTrue(perPrincipal.isConnected(), "a server without a shared key starts, per principal");
            MemorySegment local = arena.allocate(SIZE, 4096);
            local.fill((byte) 0x77);
            RdmaBuffer b = perPrincipal.registerBuffer(local, SIZE);
            assertEquals(0, perPrincipal.allocateChannelId());
            clientA.memory.segment().fill((byte) 0x11);
            int[] status = {-1};
            assertEquals(-Errno.EINVAL, perPrincipal.handleGetObject("shared", b, clientA.addr(0), SIZE,
                    clientA.get(0, SIZE), 0, 0, status));
            assertEquals(-1, status[0], "nothing was dialed");
            assertEquals(-Errno.EINVAL, perPrincipal.handlePutObject("shared", b, clientA.addr(0), SIZE,
                    clientA.put(0, SIZE), 0));
            assertEquals(0, perPrincipal.agentConnectionCount());
            assertEquals(-1, clientA.memory.segment().mismatch(filled(SIZE, (byte) 0x11)), "A's memory unchanged");
            assertEquals(SIZE, perPrincipal.handleGetObject(principalA, "a", b, clientA.addr(0), SIZE,
                    clientA.get(0, SIZE), 0, 0, status, null));
            assertEquals(-1, clientA.memory.segment().mismatch(filled(SIZE, (byte) 0x77)), "A's own key serves A");
        }
    }

    private static MemorySegment filled(int size, byte value) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, value);
        return MemorySegment.ofArray(b);
    }
}
