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

    /** A self-signed certificate in PEM made by the JDK's keytool (what bin/objrdma-tls uses), its subject CN=cn. */
    private Path pem(String name, String cn) throws Exception {
        Path store = home.resolve(name + ".p12");
        Path pem = home.resolve(name + ".pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        for (String[] cmd : new String[][] {
                {keytool, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=" + cn, "-keystore",
                        store.toString(), "-storetype", "PKCS12", "-storepass", "test-only"},
                {keytool, "-exportcert", "-rfc", "-alias", "ca", "-keystore", store.toString(), "-storepass",
                        "test-only", "-file", pem.toString()}}) {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
        }
        return pem;
    }

    /** --ca-bundle, else AWS_CA_BUNDLE, else the profile's ca_bundle (the aws CLI's order); none: the JDK's trust. */
    @Test
    void caBundleFromTheFlagTheEnvironmentOrTheProfile() throws Exception {
        Path flag = pem("flag", "flag CA");
        Path fromEnv = pem("env", "env CA");
        Path fromProfile = pem("profile", "profile CA");
        assertEquals(null, ClientConfig.resolve(new ClientConfig.Flags("https://h:1", null, null), env).caBundle());
        Files.writeString(home.resolve(".aws/config"), "[default]\nca_bundle = " + fromProfile + "\n");
        assertEquals(fromProfile, ClientConfig.resolve(new ClientConfig.Flags("https://h:1", null, null), env)
                .caBundle().file());
        env.put("AWS_CA_BUNDLE", fromEnv.toString());
        assertEquals(fromEnv, ClientConfig.resolve(new ClientConfig.Flags("https://h:1", null, null), env)
                .caBundle().file());
        ClientConfig c = ClientConfig.resolve(new ClientConfig.Flags("https://h:1", null, null, flag.toString()), env);
        assertEquals(flag, c.caBundle().file());
        javax.net.ssl.X509TrustManager tm = (javax.net.ssl.X509TrustManager) c.caBundle().trustManagers()[0];
        assertEquals(1, tm.getAcceptedIssuers().length, "only the bundle's certificate is trusted");
        assertTrue(tm.getAcceptedIssuers()[0].getSubjectX500Principal().getName().contains("flag CA"));
    }

    @Test
    void aMissingOrEmptyCaBundleIsAConfigurationError() throws Exception {
        UserError missing = assertThrows(UserError.class, () -> ClientConfig.resolve(
                new ClientConfig.Flags("https://h:1", null, null, home.resolve("nope.pem").toString()), env));
        assertEquals(ExitCodes.CONFIG, missing.exitCode());
        assertTrue(missing.getMessage().contains("nope.pem"), missing.getMessage());
        Files.writeString(home.resolve("empty.pem"), "not a certificate\n");
        UserError empty = assertThrows(UserError.class, () -> ClientConfig.resolve(
                new ClientConfig.Flags("https://h:1", null, null, home.resolve("empty.pem").toString()), env));
        assertEquals(ExitCodes.CONFIG, empty.exitCode());
        assertTrue(empty.getMessage().contains("certificate"), empty.getMessage());
    }
}
