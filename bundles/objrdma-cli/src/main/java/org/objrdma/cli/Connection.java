package org.objrdma.cli;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.objrdma.api.transport.TransportException;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.sdk.RdmaProtocol;
import org.objrdma.client.sdk.RdmaS3;
import org.objrdma.transport.tcp.StandaloneTcpTransport;
import org.objrdma.transport.tcp.TcpTransports;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * What one command holds, opened in order and closed in reverse: the client's TCP transport (its memory agent, on the
 * address the gateway reaches it by), the S3Client, the {@link RdmaS3} over both, and the registered memory.
 */
final class Connection implements AutoCloseable {
    final S3Client s3;
    final RdmaS3 rdma;
    private final StandaloneTcpTransport transport;
    private final Arena arena = Arena.ofShared();

    private Connection(ClientConfig config, RdmaProtocol protocol, String bindAddress, long rdmaMinBytes)
            throws UserError, IOException {
        if (rdmaMinBytes < 1) {
            throw new UserError(ExitCodes.USAGE, "--rdma-min-bytes must be at least 1B, was " + rdmaMinBytes);
        }
        // also for --protocol http: the memory is registered with it either way (one code path for the bytes)
        String bind = bindAddress != null ? bindAddress : localAddressTowards(config.endpoint().getHost());
        try {
            transport = TcpTransports.start(Map.of("bind.address", bind));
        } catch (IllegalArgumentException e) {
            throw new UserError(ExitCodes.USAGE, "bad --bind-address '" + bind + "': " + e.getMessage());
        }
        S3ClientBuilder b = S3Client.builder().endpointOverride(config.endpoint()).region(config.region())
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(config.credentials()));
        SSLContext tls = null;
        if (config.caBundle() != null) {
            // one trust for both HTTP paths: the S3Client's (SDK) and the RC routes' (JDK client)
            CaBundle bundle = config.caBundle();
            b.httpClientBuilder(Apache5HttpClient.builder().tlsTrustManagersProvider(bundle::trustManagers));
            tls = bundle.sslContext();
        }
        s3 = b.build();
        rdma = RdmaS3.create(s3, transport, protocol, RdmaS3.DEFAULT_TIMEOUT, tls, rdmaMinBytes);
    }

    static Connection open(ClientConfig config, RdmaProtocol protocol, String bindAddress, long rdmaMinBytes)
            throws UserError, IOException {
        return new Connection(config, protocol, bindAddress, rdmaMinBytes);
    }

    /** Registered memory of {@code size} bytes (at least one page), closed with this connection. */
    ClientMemory memory(long size) throws UserError {
        try {
            return ClientMemory.register(transport, arena.allocate(Math.max(4096, size), 4096));
        } catch (TransportException e) {
            throw new UserError(ExitCodes.FAILED, "cannot register " + size + " bytes: " + e.getMessage());
        } catch (OutOfMemoryError e) {
            throw new UserError(ExitCodes.LOCAL_IO, "cannot allocate " + Sizes.human(size)
                    + " of memory: lower --chunk-size");
        }
    }

    /**
     * The local address the system routes to {@code host} by (a UDP connect sends nothing): loopback for a gateway on
     * this host, the right interface otherwise. The gateway dials the client's memory agent there.
     */
    static String localAddressTowards(String host) throws UserError {
        try (DatagramSocket s = new DatagramSocket()) {
            InetAddress target = InetAddress.getByName(host);
            if (target.isLoopbackAddress()) {
                return target.getHostAddress();
            }
            s.connect(new InetSocketAddress(target, 9));
            return s.getLocalAddress().getHostAddress();
        } catch (UnknownHostException e) {
            throw new UserError(ExitCodes.CONFIG, "cannot resolve the endpoint's host '" + host + "'");
        } catch (IOException e) {
            throw new UserError(ExitCodes.CONFIG, "no route to the endpoint's host '" + host + "': " + e.getMessage()
                    + " (pass --bind-address)");
        }
    }

    @Override
    public void close() {
        rdma.close();
        s3.close();
        transport.close();
        arena.close();
    }
}
