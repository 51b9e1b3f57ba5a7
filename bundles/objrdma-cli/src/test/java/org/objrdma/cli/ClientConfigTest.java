package org.objrdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/** Endpoint, region and credential resolution as the aws CLI does it, from a given environment and real files. */
class ClientConfigTest {
    @TempDir
    Path home;
    private final Map<String, String> env = new HashMap<>();
    private static final ClientConfig.Flags NONE = new ClientConfig.Flags(null, null, null);

    @BeforeEach
    void files() throws Exception {
        env.put("HOME", home.toString());
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), """
                [default]
                aws_access_key_id = DEFAULTKEY
                aws_secret_access_key = defaultSecret
                [lab]
                aws_access_key_id = LABKEY
                aws_secret_access_key = labSecret
                """);
        Files.writeString(home.resolve(".aws/config"), """
                [default]
                region = eu-west-1
                [profile lab]
                region = us-west-2
                endpoint_url = http://10.0.0.7:8181
                """);
    }

    @Test
    void theDefaultProfileFromTheSharedFiles() throws Exception {
        ClientConfig c = ClientConfig.resolve(new ClientConfig.Flags("http://127.0.0.1:8181", null, null), env);
        assertEquals("DEFAULTKEY", c.credentials().accessKeyId());
        assertEquals("defaultSecret", c.credentials().secretAccessKey());
        assertEquals("eu-west-1", c.region().id());
        assertEquals("http://127.0.0.1:8181", c.endpoint().toString());
    }

    @Test
    void environmentCredentialsWinOverTheDefaultProfile() throws Exception {
        env.put("AWS_ACCESS_KEY_ID", "ENVKEY");
        env.put("AWS_SECRET_ACCESS_KEY", "envSecret");
        env.put("AWS_SESSION_TOKEN", "tok");
        env.put("AWS_ENDPOINT_URL", "http://127.0.0.1:9000");
        env.put("AWS_DEFAULT_REGION", "ap-south-1");
        ClientConfig c = ClientConfig.resolve(NONE, env);
        assertEquals("ENVKEY", c.credentials().accessKeyId());
        assertEquals("tok", assertInstanceOf(AwsSessionCredentials.class, c.credentials()).sessionToken());
        assertEquals("ap-south-1", c.region().id());
        assertEquals("http://127.0.0.1:9000", c.endpoint().toString());
        env.put("AWS_REGION", "ca-central-1");
        env.put("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9001");
        c = ClientConfig.resolve(NONE, env);
        assertEquals("ca-central-1", c.region().id(), "AWS_REGION before AWS_DEFAULT_REGION");
        assertEquals("http://127.0.0.1:9001", c.endpoint().toString(), "the service-specific variable first");
    }

    @Test
    void anExplicitProfileFlagWinsOverEnvironmentCredentials() throws Exception {
        env.put("AWS_ACCESS_KEY_ID", "ENVKEY");
        env.put("AWS_SECRET_ACCESS_KEY", "envSecret");
        ClientConfig c = ClientConfig.resolve(new ClientConfig.Flags(null, "lab", null), env);
        assertEquals("LABKEY", c.credentials().accessKeyId());
        assertEquals("us-west-2", c.region().id());
        assertEquals("http://10.0.0.7:8181", c.endpoint().toString(), "endpoint_url of the profile");
        ClientConfig flags = ClientConfig.resolve(new ClientConfig.Flags("http://[::1]:8181", "lab", "us-east-2"), env);
        assertEquals("http://[::1]:8181", flags.endpoint().toString(), "flags before the profile");
        assertEquals("us-east-2", flags.region().id());
    }

    @Test
    void awsProfileSelectsTheProfileAndFilesMayBeElsewhere() throws Exception {
        Path elsewhere = home.resolve("other");
        Files.createDirectories(elsewhere);
        Files.writeString(elsewhere.resolve("creds"), "[x]\naws_access_key_id = XKEY\naws_secret_access_key = xs\n");
        Files.writeString(elsewhere.resolve("conf"), "[profile x]\nendpoint_url = http://127.0.0.1:1234\n");
        env.put("AWS_SHARED_CREDENTIALS_FILE", elsewhere.resolve("creds").toString());
        env.put("AWS_CONFIG_FILE", elsewhere.resolve("conf").toString());
        env.put("AWS_PROFILE", "x");
        ClientConfig c = ClientConfig.resolve(NONE, env);
        assertEquals("XKEY", c.credentials().accessKeyId());
        assertEquals("us-east-1", c.region().id(), "no region anywhere: us-east-1");
        assertEquals("http://127.0.0.1:1234", c.endpoint().toString());
    }

    @Test
    void refusalsNameWhatIsMissing() throws Exception {
        UserError unknown = assertThrows(UserError.class,
                () -> ClientConfig.resolve(new ClientConfig.Flags("http://h:1", "nope", null), env));
        assertEquals(ExitCodes.CONFIG, unknown.exitCode());
        assertTrue(unknown.getMessage().contains("'nope'"), unknown.getMessage());

        UserError noEndpoint = assertThrows(UserError.class, () -> ClientConfig.resolve(NONE, env));
        assertTrue(noEndpoint.getMessage().contains("--endpoint-url"), noEndpoint.getMessage());

        UserError bad = assertThrows(UserError.class,
                () -> ClientConfig.resolve(new ClientConfig.Flags("ftp://h/x", null, null), env));
        assertTrue(bad.getMessage().contains("http[s]://HOST[:PORT]"), bad.getMessage());

        env.put("AWS_ACCESS_KEY_ID", "ONLYKEY");
        UserError half = assertThrows(UserError.class,
                () -> ClientConfig.resolve(new ClientConfig.Flags("http://h:1", null, null), env));
        assertTrue(half.getMessage().contains("together"), half.getMessage());

        env.remove("AWS_ACCESS_KEY_ID");
        Files.delete(home.resolve(".aws/credentials"));
        UserError none = assertThrows(UserError.class,
                () -> ClientConfig.resolve(new ClientConfig.Flags("http://h:1", null, null), env));
        assertEquals(ExitCodes.CONFIG, none.exitCode());
        assertTrue(none.getMessage().contains("AWS_ACCESS_KEY_ID"), none.getMessage());
    }
}
