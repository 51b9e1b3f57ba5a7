package org.objrdma.benchmarks;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;

/** gaul/s3proxy 4.1.0 in this JVM, filesystem backend: the peer a Java user would otherwise pick. */
final class S3ProxyPeer implements AutoCloseable {

    static final String ACCESS_KEY = "bench-access";
    static final String SECRET_KEY = "bench-secret-0123456789";

    private final S3Proxy proxy;

    S3ProxyPeer(Path baseDir) throws Exception {
        Properties p = new Properties();
        p.setProperty("jclouds.filesystem.basedir", baseDir.toString());
        proxy = S3Proxy.builder().blobStore(BlobStores.create("filesystem", p))
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start();
        while (!"STARTED".equals(proxy.getState())) {
            Thread.sleep(10);
        }
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
