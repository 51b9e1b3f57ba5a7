package org.objrdma.client.sdk;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.s3.LoopbackHttpFront;
import org.objrdma.s3.S3Gateway;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.session.internal.MonotonicClock;
import org.objrdma.session.internal.RandomSource;
import org.objrdma.session.internal.SessionCore;
import org.objrdma.session.internal.SessionSettings;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The gateway as a client meets it, in this JVM: the S3 protocol layer behind the JDK's HTTP server on a real
 * loopback socket ({@link LoopbackHttpFront}, objrdma-s3's test jar), a filesystem store under a temporary
 * directory, the real session core, staging pool and cuObject facade, and the server's own TCP transport. Clients
 * (the SDK plugin, the CLI) reach it only through the socket and their own transport.
 *
 * <p>The facade runs in the cuObjServer-compatible shared-key mode (today's gateway does not yet pass the principal
 * to it); its key is set to {@code AgentKeys.forPrincipal(SECRET)}, the key a client opening its agent with
 * {@code CuObjAgent.openForPrincipal(transport, SECRET)} uses, which is also the key the per-principal mode derives.
 */
public final class GatewayOnSocket implements AutoCloseable {
    public static final String AK = "AKIAOBJRDMACLIENT001";
    public static final String SECRET = "clientSdkTestSecretKey/0123456789abcdefgh";

    public final TcpTransport serverTransport;
    public final BufferPool pool;
    public final SessionCore core;
    public final CuObjServer cuObj;
    public final EmbeddedStore store;
    public final LoopbackHttpFront front;

    public GatewayOnSocket(Path storeRoot, RdmaSettings settings) throws IOException {
        this(storeRoot, settings, StagingSettings.defaults());
    }

    /** With the staging pool's own settings (e.g. a small max.bytes.per.principal, to make the gateway busy). */
    public GatewayOnSocket(Path storeRoot, RdmaSettings settings, StagingSettings staging) throws IOException {
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(staging, serverTransport, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().execTimeoutMs(10_000).prepTimeoutMs(5_000)
                .allowAddresses("127.0.0.0/8").build(), MonotonicClock.system(), RandomSource.secure());
        core.useTransport(serverTransport);
        core.useStagingPool(pool);
        core.startReaper();
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(AgentKeys.forPrincipal(SECRET));
        t.setAllowAddresses("127.0.0.0/8"); // the client agents listen on loopback
        cuObj = new CuObjServer(serverTransport, "127.0.0.1", 0, CuObj.CUOBJ_PROTO_RDMA_DC_V1, t);
        store = EmbeddedStores.filesystem(storeRoot, Map.of(AK, SECRET), 5L << 30, false);
        S3Gateway gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(),
                RdmaServices.of(core, pool, cuObj, settings));
        front = new LoopbackHttpFront(gateway);
    }

    /**
     * The default staging with {@code max.buffer.size} = {@code max.bytes.per.principal} = {@code perPrincipal} (a
     * power of two): one lease of that size held for a principal ({@link #holdStaging}) makes every RDMA transfer
     * of that principal busy (PREPARE 429 RdmaResourceLimit, the cuObject routes 503 SlowDown).
     */
    public static StagingSettings smallStaging(long perPrincipal) {
        StagingSettings d = StagingSettings.defaults();
        return new StagingSettings(d.minBufferSize(), perPrincipal, 8 * perPrincipal, perPrincipal,
                d.maxBuffersPerClass(), d.maxBuffersPerPrincipalPerClass(), d.idlePerClass(), d.idleTimeout(),
                d.borrowWait(), d.leaseDeadline(), d.leaseCheckPeriod(), false, d.shutdownTimeout(), true);
    }

    /** Borrows {@code bytes} of staging for {@link #AK}'s principal, as another transfer of that principal does. */
    public StagingLease holdStaging(long bytes) throws StagingException {
        return pool.borrow(bytes, PrincipalId.fromCredentials(AK, SECRET), "another client of " + AK, Duration.ZERO);
    }

    public URI endpoint() {
        return front.endpoint();
    }

    /** An S3Client as an application builds one for this gateway: path style, static credentials. */
    public S3Client client(String accessKey, String secret) {
        return S3Client.builder().endpointOverride(endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
                .build();
    }

    @Override
    public void close() {
        front.close();
        core.shutdown(Duration.ofSeconds(2));
        cuObj.close();
        pool.close();
        store.close();
        serverTransport.close();
    }
}
