package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The TCP transport inside Karaf: the service is published with its name, level and ranking; two channels
 * of it connect over loopback and move 1 MiB; a bad rkey is refused with REM_ACCESS_ERR; a configuration
 * change re-registers the service with the new ranking.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class TcpTransportIT extends ObjRdmaTestSupport {

    private static final String PID = "org.objrdma.transport.tcp";
    private static final String TCP = "(" + Transport.PROPERTY_NAME + "=tcp)";

    @Configuration
    public Option[] config() {
        return baseOptions();
    }

    @Test
    public void movesDataOverLoopbackAndRefusesABadRkey() throws Exception {
        Transport tcp = waitForService(Transport.class, TCP);
        assertEquals(TransportLevel.TCP, tcp.level());
        assertTrue(tcp.isAvailable());
        int size = 1 << 20;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(size, 4096);
            MemorySegment target = arena.allocate(size, 4096);
            for (int i = 0; i < size; i++) {
                source.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            MemoryRegion src = tcp.register(source, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion dst = tcp.register(target, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            Channel a = tcp.openChannel(ChannelOptions.DEFAULT);
            Channel b = tcp.openChannel(ChannelOptions.DEFAULT);
            try {
                CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                    try {
                        b.connect(a.localEndpoint());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                a.connect(b.localEndpoint());
                other.get(30, TimeUnit.SECONDS);
                assertEquals(ChannelState.CONNECTED, a.state());
                assertEquals(ChannelState.CONNECTED, b.state());

                BatchResult ok = a.submit(List.of(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))),
                        Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);
                assertTrue("write failed: " + ok, ok.isSuccess());
                assertEquals(size, ok.bytesTransferred());
                assertEquals("target equals source", -1, source.mismatch(target));

                BatchResult bad = a.submit(List.of(WorkRequest.write(2, ScatterGatherEntry.of(src), dst.address(),
                        dst.rkey() ^ 0x00FF_FF00)), Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);
                assertEquals(WcStatus.REM_ACCESS_ERR, bad.completions().get(0).status());
                assertEquals(ChannelState.ERROR, a.state());
            } finally {
                a.close();
                b.close();
                src.close();
                dst.close();
            }
        }
    }

    @Test
    public void reconfigurationReRegistersTheService() throws Exception {
        waitForService(Transport.class, TCP);
        ServiceReference<Transport> before = reference();
        assertEquals(0, before.getProperty(Constants.SERVICE_RANKING));
        assertEquals("TCP", before.getProperty(Transport.PROPERTY_LEVEL));
        long idBefore = (Long) before.getProperty(Constants.SERVICE_ID);
        try {
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(Constants.SERVICE_RANKING, 7);
            props.put("frame.size", 1 << 20);
            configure(props);
            await("TCP transport re-registered with ranking 7", SERVICE_TIMEOUT, () -> {
                ServiceReference<Transport> now = reference();
                return now != null && Integer.valueOf(7).equals(now.getProperty(Constants.SERVICE_RANKING));
            });
            ServiceReference<Transport> after = reference();
            assertNotEquals("a new registration", idBefore, after.getProperty(Constants.SERVICE_ID));
            Transport t = bundleContext.getService(after);
            try {
                assertNotNull(t);
                assertTrue(t.isAvailable());
            } finally {
                bundleContext.ungetService(after);
            }
        } finally {
            configure(null);
            await("TCP transport back on its defaults", SERVICE_TIMEOUT, () -> {
                ServiceReference<Transport> now = reference();
                return now != null && Integer.valueOf(0).equals(now.getProperty(Constants.SERVICE_RANKING));
            });
        }
    }

    /**
     * Updates (or with null deletes) the PID's configuration, holding its own reference to Configuration Admin
     * for exactly the duration of the call (Felix refuses calls on a Configuration Admin object whose last
     * reference was released: "Configuration Admin service has been unregistered").
     */
    private void configure(Hashtable<String, Object> props) throws Exception {
        ServiceReference<ConfigurationAdmin> ref = bundleContext.getServiceReference(ConfigurationAdmin.class);
        assertNotNull("no Configuration Admin", ref);
        ConfigurationAdmin ca = bundleContext.getService(ref);
        try {
            org.osgi.service.cm.Configuration c = ca.getConfiguration(PID, "?");
            if (props == null) {
                c.delete();
            } else {
                c.update(props);
            }
        } finally {
            bundleContext.ungetService(ref);
        }
    }

    private ServiceReference<Transport> reference() {
        try {
            var refs = bundleContext.getServiceReferences(Transport.class, TCP);
            return refs.isEmpty() ? null : refs.iterator().next();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
