package org.objrdma.itests.s3;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;

/**
 * gaul/s3proxy 4.1.0 in this JVM with its filesystem backend in a directory: the reference server the
 * conformance suite is proven against (a standard S3 server must pass it) and the benchmark's peer.
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String ACCESS_KEY = "s3proxy-access";
    public static final String SECRET_KEY = "s3proxy-secret-key-0123456789";
    public static final String REGION = "us-east-1";

    private final S3Proxy proxy;

    private S3ProxyServer(S3Proxy proxy) {
        this.proxy = proxy;
    }

    /** Starts s3proxy on a free loopback port, objects stored under {@code baseDir}. */
    public static S3ProxyServer start(Path baseDir) throws Exception {
        return start(baseDir, 0);
    }

    /** Runs s3proxy in its own JVM until killed: {@code S3ProxyServer <baseDir> <port>} (see S3ProxyProcess). */
    public static void main(String[] args) throws Exception {
        start(Path.of(args[0]), Integer.parseInt(args[1]));
        Thread.currentThread().join();
    }

    /** Starts s3proxy on loopback {@code port} (0: a free one), objects stored under {@code baseDir}. */
    public static S3ProxyServer start(Path baseDir, int port) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", baseDir.toString());
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(BlobStores.create("filesystem", properties))
                .endpoint(URI.create("http://127.0.0.1:" + port))
                // both, as objrdma by default (sigv2.enabled = true): the SigV2 client tests run against both
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                // the SDK's multipart client sends x-amz-mp-object-size on CompleteMultipartUpload, which S3
                // accepts and s3proxy 4.1.0 otherwise answers with 501 NotImplemented
                .ignoreUnknownHeaders(true)
                .build();
        proxy.start();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
            }
            Thread.sleep(20);
        }
        return new S3ProxyServer(proxy);
    }

    public S3Target target() {
        return new S3Target(URI.create("http://127.0.0.1:" + proxy.getPort()), ACCESS_KEY, SECRET_KEY, REGION);
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
