package org.objrdma.cuobj;

import java.lang.foreign.Arena;
import org.objrdma.api.session.Op;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.client.CuObjGrant;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * A cuObject client in the test JVM, on its own TCP transport (its own memory agent): for the tests that need
 * many quick round trips. The end-to-end tests use {@link ClientPeer} in a second JVM instead.
 */
final class InProcessClient implements AutoCloseable {
    final TcpTransport transport;
    final Arena arena = Arena.ofShared();
    final ClientMemory memory;
    final CuObjAgent agent;
    /** Every descriptor's grant, revoked at close (the tests hand descriptors out and let them be). */
    private final java.util.List<CuObjGrant> grants = new java.util.concurrent.CopyOnWriteArrayList<>();

    InProcessClient(byte[] key, long bytes, int lanes) throws Exception {
        transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        memory = ClientMemory.register(transport, arena.allocate(bytes, 4096));
        agent = CuObjAgent.open(transport, key, lanes, CuObjAgent.DEFAULT_MAX_REQUEST_SIZE);
    }

    String get(long offset, long size) throws TransportException {
        return get(offset, size, 0);
    }

    String get(long offset, long size, int lane) throws TransportException {
        return kept(agent.descriptor(memory, offset, size, Op.GET, lane));
    }

    String put(long offset, long size) throws TransportException {
        return put(offset, size, 0);
    }

    String put(long offset, long size, int lane) throws TransportException {
        return kept(agent.descriptor(memory, offset, size, Op.PUT, lane));
    }

    private String kept(CuObjGrant grant) {
        grants.removeIf(g -> !g.isValid());
        grants.add(grant);
        return grant.descriptor().format();
    }

    /** The client address of {@code offset}. */
    long addr(long offset) {
        return memory.segment().address() + offset;
    }

    @Override
    public void close() {
        grants.forEach(CuObjGrant::close);
        agent.close();
        memory.close();
        transport.close();
        arena.close();
    }
}
