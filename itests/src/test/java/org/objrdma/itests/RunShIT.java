package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code ./run.sh server} itself (issue 24 findings 3 and 4), in a copy of the repository's launch files
 * ({@code run.sh}, {@code scripts/jdk.sh}, {@code pom.xml} and the built distribution, so the user's own
 * {@code target/run} is left alone). Karaf is not meant to run here: {@code JAVA_OPTS=-Xmx1k} (which bin/setenv
 * and bin/inc pass to the JVM as given) makes the JVM refuse to start at once, so nothing binds the default ports
 * a real {@code ./run.sh} may hold. What is checked is what run.sh prints and writes before it starts Karaf: the
 * admin password generated on a fresh {@code target/run}, printed that once and stored only in 0600 files; later
 * starts keep it; the stock {@code karaf}/{@code karaf} of an older distribution is replaced; a rebuild keeps it.
 */
public class RunShIT {

    private static final Pattern PRINTED = Pattern.compile("objrdma: Karaf admin +user karaf, password ([A-Za-z0-9]+) ");
    private static Path repo;
    private static Path home;

    @BeforeClass
    public static void copyTheLaunchFiles() throws Exception {
        repo = Path.of("target", "run-sh").toAbsolutePath();
        home = LaunchFiles.copyInto(repo);
    }

    private static String runSh() throws Exception {
        Processes.Ran ran = Processes.exec(repo, Duration.ofSeconds(180), "",
                Map.of("JAVA_OPTS", "-Xmx1k", "JAVA_HOME", System.getProperty("java.home")), "./run.sh", "server");
        assertTrue(ran.output(), ran.output().contains("objrdma: starting Karaf in"));
        assertTrue("Karaf was meant not to start: " + ran.output(), ran.output().contains("Too small maximum heap"));
        return ran.output();
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<String> karafLines() throws Exception {
        return Files.readAllLines(home.resolve("etc/users.properties")).stream()
                .filter(l -> l.matches("\\s*karaf\\s*=.*")).toList();
    }

    @Test
    public void theAdminPasswordIsGeneratedPrintedOnceKeptOwnerOnlyAndSurvivesARebuild() throws Exception {
        // a fresh target/run
        String first = runSh();
        Matcher m = PRINTED.matcher(first);
        assertTrue("no admin password printed: " + first, m.find());
        String password = m.group(1);
        assertEquals(24, password.length());
        assertEquals(List.of("karaf = " + password + ",_g_:admingroup"), karafLines());
        Path adminEnv = repo.resolve("target/run/admin.env");
        assertTrue(Files.readString(adminEnv).contains("KARAF_PASSWORD=" + password + "\n"));
        for (Path secret : List.of(adminEnv, repo.resolve("target/run/s3.env"), home.resolve("etc/users.properties"),
                home.resolve("etc/org.objrdma.store.fs.cfg"))) {
            assertEquals(secret.toString(), "rw-------", mode(secret));
        }
        assertEquals("rwx------", mode(repo.resolve("target/run")));
        assertEquals("rwx------", mode(home));

        // a second start keeps it and does not print it
        String second = runSh();
        assertFalse(second, second.contains(password));
        assertTrue(second, second.contains("objrdma: Karaf admin   user karaf, password in target/run/admin.env"));
        assertEquals(List.of("karaf = " + password + ",_g_:admingroup"), karafLines());

        // a target/run of an older run.sh: the stock karaf/karaf, an s3.env created 0644
        Path users = home.resolve("etc/users.properties");
        Files.writeString(users, Files.readString(users).replace("karaf = " + password, "karaf = karaf"));
        Path s3env = repo.resolve("target/run/s3.env");
        Files.setPosixFilePermissions(s3env, PosixFilePermissions.fromString("rw-r--r--"));
        String third = runSh();
        Matcher replaced = PRINTED.matcher(third);
        assertTrue("karaf/karaf was kept: " + third, replaced.find());
        String newPassword = replaced.group(1);
        assertNotEquals(password, newPassword);
        assertEquals(List.of("karaf = " + newPassword + ",_g_:admingroup"), karafLines());
        assertEquals("rw-------", mode(s3env));

        // a rebuilt distribution is unpacked anew: the admin line survives, nothing is printed
        Path archive = repo.resolve("karaf-distribution/target").resolve(KarafHome.distributionArchive().getFileName());
        Files.setLastModifiedTime(archive, FileTime.from(Instant.now().plusSeconds(60)));
        String rebuilt = runSh();
        assertFalse(rebuilt, rebuilt.contains(newPassword));
        assertEquals(List.of("karaf = " + newPassword + ",_g_:admingroup"), karafLines());
        assertEquals("rw-------", mode(users));
    }
}
