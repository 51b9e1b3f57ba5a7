package org.objrdma.itests.s3;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.TrustManagerFactory;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.objrdma.itests.ObjRdmaTestSupport;
import org.objrdma.itests.Processes;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;

/**
 * HTTPS on the S3 port of the real distribution ({@code bin/karaf server}), set up as README "HTTPS" says:
 * {@code bin/objrdma-tls} (what ./run.sh runs on the first start) generates a CA and a server keystore under
 * {@code etc/tls/} and turns Pax Web's secure connector on; HTTP stays on loopback. Then the aws CLI
 * ({@code --ca-bundle}), the AWS SDK v2 trusting the CA file and {@code bin/objrdma} (cuObject and hipobj-rc-v2 on the
 * TCP transport) work over https; a client trusting another CA, or a server keystore whose certificate has expired
 * (a keystore "the user supplies", configured through the org.ops4j.pax.web.ssl.* keys), fails with a certificate
 * error. Every port is a free one. The expired-certificate test runs last (it swaps the keystore and restarts).
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class HttpsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final int MIB = 1 << 20;
    private static ObjrdmaGateway gateway;
    private static Path home;
    private static Path scratch;
    private static Path ca;
    private static int httpsPort;
    private static String toolOutput;

    @BeforeClass
    public static void startWithGeneratedTls() throws Exception {
        Path root = Path.of("target", "https").toAbsolutePath();
        gateway = ObjrdmaGateway.unpack(root.resolve("karaf"));
        home = gateway.home();
        scratch = Files.createDirectories(root.resolve("scratch"));
        httpsPort = ObjRdmaTestSupport.freePort();
        append("org.ops4j.pax.web.cfg", "org.osgi.service.http.port.secure = " + httpsPort);
        // the single-machine RDMA demo, as ./run.sh writes it: the client's memory agent listens on loopback
        append("org.objrdma.cuobj.cfg", "allow.addresses = 127.0.0.0/8");
        append("org.objrdma.session.cfg", "allow.addresses = 127.0.0.0/8");
        Processes.Ran tls = Processes.exec(home, TIMEOUT, "", home.resolve("bin/objrdma-tls").toString());
        assertEquals(tls.output(), 0, tls.exitValue());
        toolOutput = tls.output();
        ca = home.resolve("etc/tls/objrdma-ca.pem");
        assertEquals("bin/objrdma-tls prints the CA file's path and nothing else", ca.toString(), toolOutput.strip());
        gateway.start(); // waits for a signed ListBuckets over plain HTTP on loopback
        awaitHttps(Duration.ofSeconds(90));
    }

    @AfterClass
    public static void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static void append(String file, String line) throws Exception {
        Files.writeString(home.resolve("etc").resolve(file), "\n" + line + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static URI https(String host) {
        return URI.create("https://" + host + ":" + httpsPort);
    }

    /** The secure connector starts with Pax Web, possibly after the HTTP one answered. */
    private static void awaitHttps(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (S3Client s3 = sdk(https("127.0.0.1"), ca)) {
            while (true) {
                try {
                    s3.listBuckets();
                    return;
                } catch (SdkClientException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("no https on " + httpsPort + "; see " + home.resolve("data/log"),
                                notYet);
                    }
                    TimeUnit.MILLISECONDS.sleep(500);
                }
            }
        }
    }

    /** The SDK v2 with its default HTTP client trusting only the certificates of {@code caFile}. */
    static S3Client sdk(URI endpoint, Path caFile) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(caFile)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        return S3Client.builder().endpointOverride(endpoint).region(Region.of(ObjrdmaGateway.REGION))
                .forcePathStyle(true)
                .httpClientBuilder(Apache5HttpClient.builder().tlsTrustManagersProvider(tmf::getTrustManagers))
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(ObjrdmaGateway.ACCESS_KEY, ObjrdmaGateway.SECRET_KEY)))
                .build();
    }

    private static String password() throws Exception {
        return Files.readString(home.resolve("etc/tls/keystore.password"));
    }

    @Test
    public void aGeneratedMaterialIsOwnerOnlyAndItsPasswordIsNowhereElse() throws Exception {
        Path tls = home.resolve("etc/tls");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tls)));
        for (String secret : List.of("objrdma-ca.p12", "objrdma-server.p12", "keystore.password")) {
            assertEquals(secret, "rw-------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.resolve(secret))));
        }
        String password = password();
        assertTrue("a generated password of 32 characters", password.matches("[A-Za-z0-9]{32}"));
        assertFalse("never printed", toolOutput.contains(password));
        assertFalse("not in the cfg file", Files.readString(home.resolve("etc/org.ops4j.pax.web.cfg"))
                .contains(password));
        // nor in Karaf's logs or Config Admin's persisted copy of org.ops4j.pax.web (it keeps $[secret:...])
        List<Path> leaks = new ArrayList<>();
        try (Stream<Path> files = Stream.concat(Files.walk(home.resolve("data/log")),
                Files.walk(home.resolve("data/cache")).filter(p -> p.toString().endsWith(".config")))) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                if (new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1).contains(password)) {
                    leaks.add(p);
                }
            }
        }
        if (Files.exists(home.resolve("console.log"))) {
            assertFalse(Files.readString(home.resolve("console.log")).contains(password));
        }
        assertEquals("files holding the keystore password", List.of(), leaks);
        assertFalse("the $[secret:...] lines resolved", Files.readString(home.resolve("data/log/karaf.log"))
                .contains("Cannot replace"));

        // the server's chain: its certificate for 127.0.0.1 and localhost, signed by the CA clients are given
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(tls.resolve("objrdma-server.p12"))) {
            server.load(in, password.toCharArray());
        }
        Certificate[] chain = server.getCertificateChain("objrdma-server");
        assertNotNull(chain);
        X509Certificate leaf = (X509Certificate) chain[0];
        X509Certificate caCert;
        try (InputStream in = Files.newInputStream(ca)) {
            caCert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        leaf.verify(caCert.getPublicKey());
        assertTrue(caCert.getBasicConstraints() >= 0);
        assertEquals(-1, leaf.getBasicConstraints());
        List<String> sans = leaf.getSubjectAlternativeNames().stream().map(l -> l.get(1).toString()).toList();
        assertTrue(sans.toString(), sans.contains("127.0.0.1") && sans.contains("localhost"));

        // generate-if-missing: a second run keeps the CA clients already trust, and the keystore
        byte[] caBefore = Files.readAllBytes(ca);
        byte[] storeBefore = Files.readAllBytes(tls.resolve("objrdma-server.p12"));
        Processes.Ran again = Processes.exec(home, TIMEOUT, "", home.resolve("bin/objrdma-tls").toString());
        assertEquals(again.output(), 0, again.exitValue());
        assertArrayEquals(caBefore, Files.readAllBytes(ca));
        assertArrayEquals(storeBefore, Files.readAllBytes(tls.resolve("objrdma-server.p12")));
        Processes.Ran bad = Processes.exec(home, TIMEOUT, "", home.resolve("bin/objrdma-tls").toString(), "--bogus");
        assertEquals(bad.output(), 2, bad.exitValue());
    }

    @Test
    public void awsCliOverHttpsWithTheCaBundleAndHttpStaysOnLoopback() throws Exception {
        Path data = Files.write(scratch.resolve("cli.bin"), bytes(3 * MIB + 5, 1));
        for (String host : List.of("127.0.0.1", "localhost")) {
            String bucket = "awscli-" + host.replace('.', '-');
            aws(https(host), ca, "s3", "mb", "s3://" + bucket);
            aws(https(host), ca, "s3", "cp", data.toString(), "s3://" + bucket + "/k");
            assertTrue(aws(https(host), ca, "s3", "ls", "s3://" + bucket).contains(" k"));
            Path back = scratch.resolve("cli-" + host + ".out");
            aws(https(host), ca, "s3", "cp", "s3://" + bucket + "/k", back.toString());
            assertArrayEquals(Files.readAllBytes(data), Files.readAllBytes(back));
        }
        // the demo's plain HTTP port still answers, on loopback
        assertTrue(aws(gateway.target().endpoint(), null, "s3", "ls").contains("awscli-127-0-0-1"));
    }

    @Test
    public void bSdkOverHttpsTrustingTheCaFileAndTheGatewayKnowsTheScheme() throws Exception {
        byte[] object = bytes(6 * MIB, 2);
        try (S3Client s3 = sdk(https("localhost"), ca); S3Client plain = sdk(gateway.target().endpoint(), ca)) {
            s3.createBucket(b -> b.bucket("sdk"));
            s3.putObject(b -> b.bucket("sdk").key("one"), RequestBody.fromBytes(object));
            assertArrayEquals(object, s3.getObjectAsBytes(b -> b.bucket("sdk").key("one")).asByteArray());
            // an absolute URL the gateway writes carries the scheme the request came by
            assertEquals("https://localhost:" + httpsPort + "/sdk/multi", multipart(s3, "multi").location());
            assertEquals(gateway.target().endpoint() + "/sdk/multi-plain", multipart(plain, "multi-plain").location());
        }
    }

    private static CompleteMultipartUploadResponse multipart(S3Client s3, String key) {
        String id = s3.createMultipartUpload(b -> b.bucket("sdk").key(key)).uploadId();
        String etag = s3.uploadPart(b -> b.bucket("sdk").key(key).uploadId(id).partNumber(1),
                RequestBody.fromBytes(bytes(1024, 3))).eTag();
        return s3.completeMultipartUpload(b -> b.bucket("sdk").key(key).uploadId(id)
                .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag))));
    }

    @Test
    public void cObjrdmaCliOverHttpsOnBothRdmaProtocols() throws Exception {
        Path data = Files.write(scratch.resolve("rdma.bin"), bytes(4 * MIB + 3, 4));
        try (S3Client s3 = sdk(https("127.0.0.1"), ca)) {
            s3.createBucket(b -> b.bucket("cli-rdma-bucket"));
        }
        objrdma(https("127.0.0.1"), ca, 0, "put", data.toString(), "s3://cli-rdma-bucket/seed", "--protocol", "http");
        for (String protocol : List.of("cuobj", "rc")) {
            String put = objrdma(https("127.0.0.1"), ca, 0, "put", data.toString(), "s3://cli-rdma-bucket/" + protocol,
                    "--protocol", protocol);
            assertTrue(put, put.contains("over " + protocol) && !put.contains("warning"));
            Path back = scratch.resolve("rdma-" + protocol + ".out");
            String get = objrdma(https("localhost"), ca, 0, "get", "s3://cli-rdma-bucket/" + protocol,
                    back.toString(), "--protocol", protocol);
            assertTrue(get, get.contains("over " + protocol) && !get.contains("warning"));
            assertArrayEquals(Files.readAllBytes(data), Files.readAllBytes(back));
        }
    }

    @Test
    public void dClientsTrustingAnotherCaFailWithACertificateError() throws Exception {
        Path other = otherCa();
        Processes.Ran aws = awsRan(https("127.0.0.1"), other, "s3", "ls");
        assertNotEquals(aws.output(), 0, aws.exitValue());
        assertTrue(aws.output(), aws.output().contains("SSL validation failed")
                && aws.output().contains("CERTIFICATE_VERIFY_FAILED"));
        try (S3Client s3 = sdk(https("127.0.0.1"), other)) {
            s3.listBuckets();
            fail("a client trusting another CA connected");
        } catch (SdkClientException refused) {
            assertTrue(String.valueOf(causes(refused)), causes(refused).contains("SSLHandshakeException"));
        }
        for (String protocol : List.of("cuobj", "rc", "http")) {
            String out = objrdma(https("127.0.0.1"), other, 1, "get", "s3://cli-rdma-bucket/seed",
                    scratch.resolve("never").toString(), "--protocol", protocol);
            assertTrue(out, out.contains("objrdma: TLS with the gateway failed: SSLHandshakeException")
                    && out.contains("PKIX path building failed"));
            assertFalse(out, out.contains("\tat "));
        }
        assertFalse(Files.exists(scratch.resolve("never")));
        // and no bundle at all: the JDK's own trust store does not know the generated CA either
        String out = objrdma(https("127.0.0.1"), null, 1, "get", "s3://cli-rdma-bucket/seed",
                scratch.resolve("never").toString());
        assertTrue(out, out.contains("TLS with the gateway failed"));
    }

    /**
     * A keystore the user supplies (the org.ops4j.pax.web.ssl.* keys pointed at it, a literal password) whose
     * certificate, signed by the same CA, expired yesterday: every client fails with a certificate error naming it.
     * Runs last (the name): it restarts Karaf with that keystore.
     */
    @Test
    public void zExpiredServerCertificateFailsEveryClient() throws Exception {
        Path expired = scratch.resolve("expired.p12");
        Path pw = home.resolve("etc/tls/keystore.password");
        String literal = "expired-store-test-only";
        Files.deleteIfExists(expired);
        keytool("-genkeypair", "-alias", "expired", "-keyalg", "EC", "-dname", "CN=localhost", "-keystore",
                expired.toString(), "-storetype", "PKCS12", "-storepass", literal);
        Path csr = scratch.resolve("expired.csr");
        Path pem = scratch.resolve("expired.pem");
        keytool("-certreq", "-alias", "expired", "-keystore", expired.toString(), "-storepass", literal, "-file",
                csr.toString());
        keytool("-gencert", "-alias", "objrdma-ca", "-keystore", home.resolve("etc/tls/objrdma-ca.p12").toString(),
                "-storepass:file", pw.toString(), "-infile", csr.toString(), "-outfile", pem.toString(), "-rfc",
                "-startdate", "-3d", "-validity", "2", "-ext", "san=ip:127.0.0.1,dns:localhost");
        Path chain = Files.writeString(scratch.resolve("expired-chain.pem"), Files.readString(pem)
                + Files.readString(ca));
        keytool("-importcert", "-noprompt", "-alias", "expired", "-keystore", expired.toString(), "-storepass",
                literal, "-file", chain.toString());

        gateway.crash();
        append("org.ops4j.pax.web.cfg", "org.ops4j.pax.web.ssl.keystore = " + expired
                + "\norg.ops4j.pax.web.ssl.keystore.password = " + literal
                + "\norg.ops4j.pax.web.ssl.key.password = " + literal + "\norg.ops4j.pax.web.ssl.key.alias = expired");
        gateway.restart();
        awaitExpiredCertificateServed(Duration.ofSeconds(90));

        Processes.Ran aws = awsRan(https("127.0.0.1"), ca, "s3", "ls");
        assertNotEquals(aws.output(), 0, aws.exitValue());
        assertTrue(aws.output(), aws.output().contains("CERTIFICATE_VERIFY_FAILED")
                && aws.output().contains("certificate has expired"));
        try (S3Client s3 = sdk(https("localhost"), ca)) {
            s3.listBuckets();
            fail("a client accepted an expired certificate");
        } catch (SdkClientException refused) {
            assertTrue(causes(refused), causes(refused).contains("CertificateExpiredException"));
        }
        for (String protocol : List.of("cuobj", "rc")) {
            String out = objrdma(https("127.0.0.1"), ca, 1, "get", "s3://cli-rdma-bucket/seed",
                    scratch.resolve("never").toString(), "--protocol", protocol);
            assertTrue(out, out.contains("objrdma: TLS with the gateway failed") && out.contains("validity check"));
        }
    }

    /** Waits until the restarted secure connector presents the expired certificate (not "connection refused"). */
    private static void awaitExpiredCertificateServed(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (S3Client s3 = sdk(https("127.0.0.1"), ca)) {
            while (true) {
                try {
                    s3.listBuckets();
                    fail("the expired certificate was accepted");
                } catch (SdkClientException e) {
                    if (causes(e).contains("CertificateExpiredException")) {
                        return;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the secure connector did not come back with the expired keystore",
                                e);
                    }
                    TimeUnit.MILLISECONDS.sleep(500);
                }
            }
        }
    }

    private static String causes(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" <- ");
        }
        return sb.toString();
    }

    private static Path otherCa() throws Exception {
        Path store = scratch.resolve("other-ca.p12");
        Path pem = scratch.resolve("other-ca.pem");
        if (!Files.exists(pem)) {
            keytool("-genkeypair", "-alias", "other", "-keyalg", "EC", "-dname", "CN=another CA", "-ext",
                    "bc:c=ca:true", "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", "other-ca");
            keytool("-exportcert", "-rfc", "-alias", "other", "-keystore", store.toString(), "-storepass",
                    "other-ca", "-file", pem.toString());
        }
        return pem;
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Processes.run(scratch, TIMEOUT, cmd.toArray(String[]::new));
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** HOME in the scratch directory, the test's credential, none of the caller's AWS settings. */
    private static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", scratch.toString());
        for (String v : List.of("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_SESSION_TOKEN",
                "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE",
                "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")) {
            env.put(v, null);
        }
        env.put("AWS_ACCESS_KEY_ID", ObjrdmaGateway.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", ObjrdmaGateway.SECRET_KEY);
        env.put("AWS_DEFAULT_REGION", ObjrdmaGateway.REGION);
        env.put("AWS_PAGER", "");
        env.put("NO_PROXY", "127.0.0.1,localhost");
        return env;
    }

    private static Processes.Ran awsRan(URI endpoint, Path caBundle, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/aws", "--endpoint-url", endpoint.toString()));
        if (caBundle != null) {
            cmd.addAll(List.of("--ca-bundle", caBundle.toString()));
        }
        cmd.addAll(List.of(args));
        return Processes.exec(scratch, TIMEOUT, "", environment(), cmd.toArray(String[]::new));
    }

    private static String aws(URI endpoint, Path caBundle, String... args) throws Exception {
        Processes.Ran ran = awsRan(endpoint, caBundle, args);
        assertEquals(ran.output(), 0, ran.exitValue());
        return ran.output();
    }

    /** The distribution's own bin/objrdma; asserts its exit status and returns what it printed. */
    private static String objrdma(URI endpoint, Path caBundle, int expectedExit, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/objrdma").toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--endpoint-url", endpoint.toString(), "--no-progress"));
        if (caBundle != null) {
            cmd.addAll(List.of("--ca-bundle", caBundle.toString()));
        }
        Processes.Ran ran = Processes.exec(scratch, TIMEOUT, "", environment(), cmd.toArray(String[]::new));
        assertEquals(String.join(" ", cmd) + "\n" + ran.output(), expectedExit, ran.exitValue());
        return ran.output();
    }
}
