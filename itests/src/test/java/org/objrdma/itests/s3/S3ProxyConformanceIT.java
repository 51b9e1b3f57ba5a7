package org.objrdma.itests.s3;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.objrdma.itests.KarafHome;

/**
 * The conformance suite against gaul/s3proxy 4.1.0 in this JVM (filesystem backend in a temporary
 * directory): proves the suite itself, since a standard S3 server must pass it.
 */
class S3ProxyConformanceIT {

    private static Path baseDir;
    private static S3ProxyServer server;

    @BeforeAll
    static void start() throws Exception {
        baseDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "s3proxy-");
        server = S3ProxyServer.start(baseDir);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        KarafHome.deleteTree(baseDir);
    }

    @Nested
    class SdkOperations extends SdkOperationsConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class SdkPayloads extends SdkPayloadConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class PresignedUrls extends PresignedUrlConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class Errors extends ErrorConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class DebianClients extends DebianClientsConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class S3Behaviours extends S3BehaviourConformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }

    @Nested
    class Boto3 extends Boto3Conformance {
        @Override protected S3Target target() { return server.target(); }
        @Override protected boolean followsS3Strictly() { return false; }
    }
}
