package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.testsupport.CountingTelemetry;

/** What the transport counts, through a real transport on the software device. */
class TransportTelemetryTest {

    @Test
    void regionsChannelsOperationsBytesAndDenialsAreCounted() throws Exception {
        CountingTelemetry t = new CountingTelemetry();
        try (ComponentFixture f = ComponentFixture.software(t); Arena arena = Arena.ofShared()) {
            Transport transport = f.transport();
            Channel a = transport.openChannel(ChannelOptions.DEFAULT);
            Channel b = transport.openChannel(ChannelOptions.DEFAULT);
            a.connect(b.localEndpoint());
            b.connect(a.localEndpoint());
            MemoryRegion src = transport.register(arena.allocate(1 << 20), Set.of(Access.LOCAL_WRITE));
            MemoryRegion dst = transport.register(arena.allocate(1 << 20),
                    Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            a.post(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
            VerbsTransportTest.pollOne(a);
            a.post(WorkRequest.read(2, new ScatterGatherEntry(src, 0, 4096), dst.address(), dst.rkey()));
            VerbsTransportTest.pollOne(a);
            a.post(WorkRequest.write(3, ScatterGatherEntry.of(src), dst.address(), dst.rkey() + 1));
            assertEquals(WcStatus.REM_ACCESS_ERR, VerbsTransportTest.pollOne(a).status());
            src.close();
            b.close();

            assertEquals(2, t.value(Counter.TRANSPORT_REGIONS_REGISTERED));
            assertEquals(1, t.value(Counter.TRANSPORT_REGIONS_DEREGISTERED));
            assertEquals(2, t.value(Counter.TRANSPORT_CHANNELS_OPENED));
            assertEquals(1, t.value(Counter.TRANSPORT_CHANNELS_CLOSED));
            assertEquals(2, t.value(Counter.TRANSPORT_OPS_COMPLETED));
            assertEquals(1, t.value(Counter.TRANSPORT_OPS_FAILED));
            assertEquals(1, t.value(Counter.TRANSPORT_REMOTE_ACCESS_DENIED));
            assertEquals(1 << 20, t.value(Counter.TRANSPORT_BYTES_WRITTEN));
            assertEquals(4096, t.value(Counter.TRANSPORT_BYTES_READ));
        }
        // the transport's close deregisters and closes what the owners left
        assertEquals(2, t.value(Counter.TRANSPORT_REGIONS_DEREGISTERED));
        assertEquals(2, t.value(Counter.TRANSPORT_CHANNELS_CLOSED));
    }
}
