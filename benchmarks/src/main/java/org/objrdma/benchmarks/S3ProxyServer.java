package org.objrdma.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * gaul/s3proxy 4.1.0 ({@link S3ProxyPeer}, filesystem backend under the directory given) as a server process of its
 * own, so the table can read its CPU time and drive it from a client in another JVM as it drives the distribution.
 * Prints {@code endpoint URL ACCESS_KEY SECRET_KEY} once it listens; stops when its standard input closes.
 */
public final class S3ProxyServer {
    private S3ProxyServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: S3ProxyServer DIRECTORY");
        }
        try (S3ProxyPeer proxy = new S3ProxyPeer(Files.createDirectories(Path.of(args[0])))) {
            System.out.println("endpoint " + proxy.endpoint() + " " + S3ProxyPeer.ACCESS_KEY + " " + S3ProxyPeer.SECRET_KEY);
            System.out.flush();
            drain();
        }
    }

    private static void drain() throws IOException {
        while (System.in.read() >= 0) {
            // nothing to read: the parent closes the pipe to stop this server
        }
    }
}
