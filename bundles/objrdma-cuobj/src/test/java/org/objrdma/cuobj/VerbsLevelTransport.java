package org.objrdma.cuobj;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Set;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;

/**
 * A test fake: a transport that says it is verbs RC (there is no RDMA device on the test machines) and lends
 * registration to a real TCP transport. Only what the facade asks of a verbs transport before refusing the DC
 * flow is real here; opening a channel on it fails the test.
 */
final class VerbsLevelTransport implements Transport {
    private final Transport registrar;

    VerbsLevelTransport(Transport registrar) {
        this.registrar = registrar;
    }

    @Override
    public String name() {
        return "verbs:fake0";
    }

    @Override
    public TransportLevel level() {
        return TransportLevel.VERBS_RC;
    }

    /** What the verbs transport declares: RC sessions, not the agent flow. */
    @Override
    public Set<String> flows() {
        return Set.of(Transport.FLOW_RC_SESSION);
    }

    @Override
    public boolean isAvailable() {
        return registrar.isAvailable();
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return registrar.unavailabilityCause();
    }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        return registrar.register(segment, access);
    }

    @Override
    public Channel openChannel(ChannelOptions options) {
        throw new AssertionError("the facade must not open channels on a verbs transport");
    }
}
