package org.objrdma.itests.s3;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.objrdma.itests.KarafHome;

/**
 * The kill-mid-PUT test against s3proxy in a child JVM (its filesystem backend writes a temporary file and
 * renames it into place): proves the test itself passable by a standard S3 server, as
 * {@link S3ProxyConformanceIT} does for the rest of the suite.
 */
class S3ProxyKillMidPutIT extends KillMidPutConformance {

    private static Path dir;
    private static S3ProxyProcess server;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "s3proxy-kill-");
        server = new S3ProxyProcess(dir);
        server.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        KarafHome.deleteTree(dir);
    }

    @Override protected S3Target target() { return server.target(); }
    @Override protected boolean followsS3Strictly() { return false; }
    @Override protected void crash() throws Exception { server.kill(); }
    @Override protected void restart() throws Exception { server.start(); }
}
