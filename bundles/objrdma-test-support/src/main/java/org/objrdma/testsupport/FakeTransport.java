package org.objrdma.testsupport;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WorkRequest;

/**
 * The one fake transport of the unit suites, configured per test by a {@link #builder}:
 *
 * <ul>
 * <li><b>Registration</b>: recorded ({@link FakeRegion}: every registration kept, its close calls counted, keys
 *     from {@link Builder#firstKey}), or lent to a real transport ({@link Builder#registrar}: a real rkey for a
 *     test that moves bytes through it). Refusals: {@link #refuseNext} registrations fail RESOURCE_EXHAUSTED.</li>
 * <li><b>Channels</b> ({@link ChannelMode}): {@code LOOPBACK} channels of one instance connect to each other by
 *     channel id and copy bytes between its registered segments, checking rkey and bounds as a NIC does (a
 *     WRITE_WITH_IMM consumes a receive posted at the peer; none is receiver-not-ready); {@code INERT} channels
 *     cost nothing and move nothing (a benchmark of the control plane); {@code NONE} refuses UNAVAILABLE;
 *     {@code FORBIDDEN} fails the test.</li>
 * <li><b>Faults</b> of loopback channels: {@link #script} replaces the completion of a send-queue request,
 *     {@link #hold} makes submits wait for the test, {@link #failConnect}, {@link #failOpen} and
 *     {@link #failReset} refuse.</li>
 * </ul>
 */
public final class FakeTransport implements Transport {

    /** What {@link #openChannel} does. */
    public enum ChannelMode { LOOPBACK, INERT, NONE, FORBIDDEN }

    private final String name;
    private final TransportLevel level;
    private final Set<String> flows;
    private final ChannelMode channelMode;
    private final Transport registrar;
    private final boolean checkArguments;
    private final boolean recording;
    private final AtomicInteger keys;
    private final AtomicLong channelIds = new AtomicLong();
    private final List<FakeRegion> registrations = new CopyOnWriteArrayList<>();
    /** Open recorded regions by rkey: what a loopback write may target. */
    final Map<Integer, FakeRegion> openRegions = new ConcurrentHashMap<>();
    final Map<Long, LoopbackChannel> channels = new ConcurrentHashMap<>();

    /** Channels opened and closed (loopback and inert). */
    public final AtomicLong opened = new AtomicLong();
    public final AtomicLong closed = new AtomicLong();
    /** Registrations to refuse (RESOURCE_EXHAUSTED) before accepting again. */
    public final AtomicInteger refuseNext = new AtomicInteger();
    /** Replaces the completion of a send-queue request on a loopback channel; a null result = the normal path. */
    public volatile Function<WorkRequest, Completion> script;
    /** When set, every loopback submit waits on this future before it runs (a data phase the test holds open). */
    public volatile CompletableFuture<Void> hold;
    public volatile boolean failConnect;
    public volatile boolean failOpen;
    public volatile boolean failReset;

    private FakeTransport(Builder b) {
        this.name = b.name;
        this.level = b.level;
        this.flows = Set.copyOf(b.flows);
        this.channelMode = b.channelMode;
        this.registrar = b.registrar;
        this.checkArguments = b.checkArguments;
        this.recording = b.recording;
        this.keys = new AtomicInteger(b.firstKey);
    }

    /** A loopback TCP-level transport named {@code name}, recording its registrations: the common case. */
    public FakeTransport(String name) {
        this(builder(name));
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    @Override public String name() { return name; }
    @Override public TransportLevel level() { return level; }
    @Override public Set<String> flows() { return flows; }

    @Override
    public boolean isAvailable() {
        return registrar == null || registrar.isAvailable();
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return registrar == null ? Optional.empty() : registrar.unavailabilityCause();
    }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        if (registrar != null) {
            return registrar.register(segment, access);
        }
        if (checkArguments && (!segment.isNative() || segment.byteSize() == 0 || access.isEmpty())) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "bad segment or access");
        }
        if (refuseNext.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "refused by the test");
        }
        FakeRegion r = new FakeRegion(this, segment, Set.copyOf(access), keys.getAndIncrement());
        if (recording) {
            registrations.add(r);
            openRegions.put(r.rkey(), r);
        }
        return r;
    }

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        switch (channelMode) {
            case NONE -> throw new TransportException(TransportError.UNAVAILABLE, name + ": the fake has no channels");
            case FORBIDDEN -> throw new AssertionError("the code under test must not open channels on " + name);
            default -> { }
        }
        if (failOpen) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "scripted open failure");
        }
        long id = channelIds.incrementAndGet();
        opened.incrementAndGet();
        if (channelMode == ChannelMode.INERT) {
            return new InertChannel(this, id);
        }
        LoopbackChannel c = new LoopbackChannel(this, id, options.accessKey());
        channels.put(id, c);
        return c;
    }

    // ---- what tests ask --------------------------------------------------------------------------------------

    /** Every registration recorded, in order, closed ones too. */
    public List<FakeRegion> regions() {
        return registrations;
    }

    /** How many registrations were recorded. */
    public int registered() {
        return registrations.size();
    }

    /** How many recorded registrations were closed (at least once). */
    public int deregistered() {
        return (int) registrations.stream().filter(r -> r.closeCalls() > 0).count();
    }

    /** Regions closed more than once: must always be empty. */
    public List<FakeRegion> closedTwice() {
        return registrations.stream().filter(r -> r.closeCalls() > 1).toList();
    }

    /** Recorded registrations open now. */
    public int regionCount() {
        return openRegions.size();
    }

    /** Loopback channels open now. */
    public int openChannels() {
        return channels.size();
    }

    /** The endpoint of loopback channel {@code id}, or null once it is gone. */
    public EndpointInfo endpointOf(long id) {
        LoopbackChannel c = channels.get(id);
        return c == null ? null : c.localEndpoint();
    }

    /** State of loopback channel {@code id}, CLOSED once it is gone. */
    public ChannelState channelState(long id) {
        LoopbackChannel c = channels.get(id);
        return c == null ? ChannelState.CLOSED : c.state();
    }

    void channelClosed(long id) {
        channels.remove(id);
        closed.incrementAndGet();
    }

    @Override
    public String toString() {
        return "FakeTransport[" + name + ", " + level + ", " + channelMode + "]";
    }

    /** The configuration of one {@link FakeTransport}. */
    public static final class Builder {
        private final String name;
        private TransportLevel level = TransportLevel.TCP;
        private Set<String> flows = Set.of();
        private ChannelMode channelMode = ChannelMode.LOOPBACK;
        private Transport registrar;
        private boolean checkArguments = true;
        private boolean recording = true;
        private int firstKey = 0x1001;

        private Builder(String name) {
            this.name = name;
        }

        public Builder level(TransportLevel level) {
            this.level = level;
            return this;
        }

        public Builder flows(String... flows) {
            this.flows = Set.of(flows);
            return this;
        }

        public Builder channels(ChannelMode mode) {
            this.channelMode = mode;
            return this;
        }

        /** Lends registration (and availability) to {@code real}: its regions, its keys. */
        public Builder registrar(Transport real) {
            this.registrar = real;
            return this;
        }

        /** False: register heap or empty segments and empty access sets without the INVALID_ARGUMENT check. */
        public Builder checkArguments(boolean check) {
            this.checkArguments = check;
            return this;
        }

        /**
         * False: registrations are not kept (nothing to count, no loopback write can target them), so a benchmark's
         * heap holds nothing of the fake's.
         */
        public Builder recording(boolean record) {
            this.recording = record;
            return this;
        }

        /** The lkey / rkey of the first recorded registration; the next ones count up. */
        public Builder firstKey(int key) {
            this.firstKey = key;
            return this;
        }

        public FakeTransport build() {
            return new FakeTransport(this);
        }
    }
}
