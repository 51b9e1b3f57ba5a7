package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;

/**
 * {@link CuObjServer#close()} closes everything even when one close throws: here the first deregistration
 * fails (as a device refusing {@code ibv_dereg_mr} would). Before, the close stopped there: the other buffers
 * stayed registered and the host memory allocated through the server was never freed.
 */
class CuObjServerCloseTest {

    /**
     * The real TCP transport, except that closing the first region it registered throws after the real
     * region is closed: the one failure this test needs, nothing else changed.
     */
    private static final class FirstDeregistrationFails implements Transport {
        final Transport real;
        final RuntimeException failure = new IllegalStateException("deregistration refused by the device");
        final List<MemoryRegion> realRegions = new CopyOnWriteArrayList<>();

        FirstDeregistrationFails(Transport real) {
            this.real = real;
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public TransportLevel level() {
            return real.level();
        }

        @Override
        public Set<String> flows() {
            return real.flows();
        }

        @Override
        public boolean isAvailable() {
            return real.isAvailable();
        }

        @Override
        public Optional<String> unavailabilityCause() {
            return real.unavailabilityCause();
        }

        @Override
        public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
            MemoryRegion r = real.register(segment, access);
            boolean first = realRegions.isEmpty();
            realRegions.add(r);
            if (!first) {
                return r;
            }
            return new MemoryRegion() {
                @Override
                public MemorySegment segment() {
                    return r.segment();
                }

                @Override
                public long address() {
                    return r.address();
                }

                @Override
                public long length() {
                    return r.length();
                }

                @Override
                public int lkey() {
                    return r.lkey();
                }

                @Override
                public int rkey() {
                    return r.rkey();
                }

                @Override
                public Set<Access> access() {
                    return r.access();
                }

                @Override
                public String transportName() {
                    return r.transportName();
                }

                @Override
                public boolean isOpen() {
                    return r.isOpen();
                }

                @Override
                public void close() {
                    r.close();
                    throw failure;
                }
            };
        }

        @Override
        public Channel openChannel(ChannelOptions options) throws TransportException {
            return real.openChannel(options);
        }
    }

    private TcpTransport tcp;

    @AfterEach
    void stop() {
        if (tcp != null) {
            tcp.close();
        }
    }

    @Test
    void aThrowingDeregistrationStillClosesEverythingElseAndIsReported() throws Exception {
        tcp = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        FirstDeregistrationFails transport = new FirstDeregistrationFails(tcp);
        CuObjRDMATunable tunable = new CuObjRDMATunable();
        tunable.setAgentKey(AgentKeys.generate());
        CuObjServer server = new CuObjServer(transport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, tunable);
        MemorySegment first = server.allocHostBuffer(4096);
        MemorySegment second = server.allocHostBuffer(4096);
        RdmaBuffer failing = server.registerBuffer(first, 4096);
        RdmaBuffer other = server.registerBuffer(second, 4096);
        assertNotNull(failing);
        assertNotNull(other);
        assertEquals(2, transport.realRegions.size());

        RuntimeException thrown = assertThrows(RuntimeException.class, server::close);

        assertSame(transport.failure, thrown);
        assertFalse(failing.isActive());
        assertFalse(other.isActive(), "the other buffer was deregistered too");
        transport.realRegions.forEach(r -> assertFalse(r.isOpen(), r + " still registered"));
        assertThrows(IllegalStateException.class, () -> first.get(ValueLayout.JAVA_BYTE, 0), "host memory freed");
        assertThrows(IllegalStateException.class, () -> second.get(ValueLayout.JAVA_BYTE, 0), "host memory freed");
        server.close(); // idempotent: nothing left, nothing thrown
    }
}
