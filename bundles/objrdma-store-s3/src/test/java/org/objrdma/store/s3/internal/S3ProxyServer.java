package org.objrdma.store.s3.internal;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;

/** gaul/s3proxy in this JVM on a loopback port, filesystem backend in a directory: the remote S3 service of the tests. */
final class S3ProxyServer implements AutoCloseable {
    static final String SERVICE_KEY = "SERVICEACCESSKEY";
    static final String SERVICE_SECRET = "service-secret-key-0123456789";

    private final S3Proxy proxy;

    S3ProxyServer(Path baseDir) throws Exception {
        Properties props = new Properties();
        props.setProperty("jclouds.filesystem.basedir", baseDir.toString());
        proxy = S3Proxy.builder()
                .blobStore(BlobStores.create("filesystem", props))
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, SERVICE_KEY, SERVICE_SECRET)
                .build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
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
