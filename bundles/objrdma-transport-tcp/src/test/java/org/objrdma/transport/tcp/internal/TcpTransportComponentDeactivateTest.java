package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * {@link TcpTransportComponent#deactivate()} closes the transport even when taking its service back throws:
 * before, the exception ended deactivation first and the agent kept listening, with its threads, in the
 * Karaf JVM. Real transport, real socket; only the framework is a stand-in.
 */
class TcpTransportComponentDeactivateTest {

    /** The component's configuration with every default, as DS gives it without a configuration. */
    private static TcpTransportConfig defaults() {
        return (TcpTransportConfig) Proxy.newProxyInstance(TcpTransportConfig.class.getClassLoader(),
                new Class<?>[] {TcpTransportConfig.class}, (p, m, a) -> m.getDefaultValue());
    }

    /** A framework whose unregistration of the service throws {@code failure}. */
    private static BundleContext failingUnregistration(RuntimeException failure) {
        ServiceRegistration<?> registration = (ServiceRegistration<?>) Proxy.newProxyInstance(
                TcpTransportComponentDeactivateTest.class.getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                (p, m, a) -> switch (m.getName()) {
                    case "unregister" -> throw failure;
                    case "toString" -> "registration";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return (BundleContext) Proxy.newProxyInstance(TcpTransportComponentDeactivateTest.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> switch (m.getName()) {
                    case "registerService" -> registration;
                    case "toString" -> "context";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static InetSocketAddress agentOf(TcpTransportComponent component) throws Exception {
        try (var channel = component.openChannel(ChannelOptions.DEFAULT)) {
            return ((EndpointInfo.Tcp) channel.localEndpoint()).address();
        }
    }

    private static boolean listening(InetSocketAddress address) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(address, 2000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }

    @Test
    void aThrowingUnregistrationStillClosesTheTransportAndIsReported() throws Exception {
        RuntimeException failure = new IllegalArgumentException("a service listener failed");
        TcpTransportComponent component = new TcpTransportComponent();
        component.activate(defaults(), Map.of(), failingUnregistration(failure));
        InetSocketAddress agent = agentOf(component);
        assertTrue(listening(agent));

        assertSame(failure, assertThrows(RuntimeException.class, component::deactivate));

        assertFalse(component.isAvailable(), "the transport was closed after the failure");
        assertFalse(listening(agent), "the agent stopped listening");
    }

    @Test
    void aServiceTheFrameworkTookBackAlreadyIsNoFailure() throws Exception {
        TcpTransportComponent component = new TcpTransportComponent();
        component.activate(defaults(), Map.of(), failingUnregistration(new IllegalStateException("already gone")));
        InetSocketAddress agent = agentOf(component);
        component.deactivate();
        assertFalse(listening(agent));
    }
}
