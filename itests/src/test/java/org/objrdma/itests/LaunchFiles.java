package org.objrdma.itests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/**
 * A copy of what {@code ./run.sh} needs to start the built distribution without building it ({@code run.sh},
 * {@code scripts/jdk.sh}, {@code pom.xml} and the distribution archive, newer than the POM), so a test can run
 * run.sh without touching the user's own {@code target/run}.
 */
final class LaunchFiles {
    private LaunchFiles() {
    }

    /** The modification time of the copied sources: older than the copied distribution. */
    static final FileTime SOURCES_TIME = FileTime.from(Instant.now().minusSeconds(7200));

    /** Fills {@code repo} (emptied first); returns the Karaf home run.sh will unpack there. */
    static Path copyInto(Path repo) throws Exception {
        Path source = source();
        KarafHome.deleteTree(repo);
        Files.createDirectories(repo.resolve("scripts"));
        Files.createDirectories(repo.resolve("karaf-distribution/target"));
        Files.copy(source.resolve("run.sh"), repo.resolve("run.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(source.resolve("pom.xml"), repo.resolve("pom.xml"));
        Files.setLastModifiedTime(repo.resolve("pom.xml"), SOURCES_TIME);
        Files.copy(source.resolve("scripts/jdk.sh"), repo.resolve("scripts/jdk.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        Path archive = KarafHome.distributionArchive();
        Path copy = Files.copy(archive, repo.resolve("karaf-distribution/target").resolve(archive.getFileName()));
        // newer than pom.xml (run.sh must not try to build) and older than the home run.sh unpacks from it (a
        // second start must not unpack it again, which would replace the home's etc/)
        Files.setLastModifiedTime(copy, FileTime.from(Instant.now().minusSeconds(3600)));
        return repo.resolve("target/run").resolve(archive.getFileName().toString().replace(".tar.gz", ""));
    }

    /** The repository the itests module belongs to. */
    static Path source() {
        return Path.of("..").toAbsolutePath().normalize();
    }
}
