package org.objrdma.cuobj;

import java.util.Objects;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.cuobj.internal.ContainerDefaults;

/**
 * Builds a {@link CuObjServer} with an explicit transport supplier, telemetry and telemetry flags (what the DS
 * component uses); {@link CuObjServer#builder()} makes one.
 */
public final class CuObjServerBuilder {
    private Supplier<Transport> transport;
    private Supplier<Telemetry> telemetry = () -> Telemetry.NOOP;
    private String ip = "127.0.0.1";
    private int port;
    private int proto = CuObj.CUOBJ_PROTO_RDMA_DC_V1;
    private CuObjRDMATunable params = new CuObjRDMATunable();
    private int[] flags;

    CuObjServerBuilder() {
    }

    /** The transport, read on every call (a DS dynamic reference may swap it); null answers -ENODEV. */
    public CuObjServerBuilder transport(Supplier<Transport> t) {
        transport = Objects.requireNonNull(t, "transport");
        return this;
    }

    public CuObjServerBuilder transport(Transport t) {
        return transport(() -> t);
    }

    /** Where CUOBJ_* counters go (read on every count); {@link Telemetry#NOOP} by default. */
    public CuObjServerBuilder telemetry(Supplier<Telemetry> t) {
        telemetry = Objects.requireNonNull(t, "telemetry");
        return this;
    }

    /** The server address (a literal IPv4 or IPv6 address without brackets) and port (0..65535). */
    public CuObjServerBuilder address(String ip, int port) {
        this.ip = ip;
        this.port = port;
        return this;
    }

    public CuObjServerBuilder proto(int p) {
        proto = p;
        return this;
    }

    /** The tunables, copied at {@link #build()}. */
    public CuObjServerBuilder tunable(CuObjRDMATunable t) {
        params = Objects.requireNonNull(t, "tunable");
        return this;
    }

    /** Telemetry flags of this server instead of the process-wide {@code setTelemFlags} ones. */
    public CuObjServerBuilder telemetryFlags(int pathFlags, int opFlags) {
        flags = new int[] {pathFlags & 0x7, opFlags & 0x3};
        return this;
    }

    /** The server, its session started if the settings allow ({@link CuObjServer#isConnected()}). */
    public CuObjServer build() {
        Supplier<Transport> t = transport != null ? transport : ContainerDefaults.transport();
        return new CuObjServer(t, telemetry, ip, port, proto, params, flags);
    }
}
