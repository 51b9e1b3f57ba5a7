package org.objrdma.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import javax.servlet.Servlet;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.auth.SigV4;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The S3 gateway in the real distribution: Pax Web's Jetty on a free port, the fs store with a configured
 * credential, real HTTP over loopback (java.net.http) signed with SigV4: create a bucket, put 1 MiB with a
 * signed payload hash, get it back byte-exact, list, a key with {@code %2F} and {@code //} kept, a wrong
 * signature refused with nothing stored, an unknown sub-resource answered 501 in S3 XML. The black-box suite
 * with the AWS SDK, aws CLI, s3cmd and rclone runs against the started distribution elsewhere.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class S3GatewayIT extends ObjRdmaTestSupport {

    private static final String AK = "ITACCESSKEY000000001";
    private static final String SECRET = "itSecretKey/0123456789abcdefghijklmnopqrs";
    private static final String PORT_PROPERTY = "objrdma.it.http.port";
    private static final DateTimeFormatter AMZ = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Configuration
    public Option[] config() {
        int port = freePort();
        return options(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "credentials", AK + ":" + SECRET),
                editConfigurationFilePut("etc/org.objrdma.store.fs.cfg", "fsync", "false"),
                org.ops4j.pax.exam.CoreOptions.systemProperty(PORT_PROPERTY).value(String.valueOf(port)));
    }

    private static String base() {
        return "http://127.0.0.1:" + Integer.getInteger(PORT_PROPERTY);
    }

    /** A SigV4-signed request (header auth, hex payload hash), built the way AWS documents it. */
    private HttpResponse<byte[]> send(String method, String rawPath, String rawQuery, byte[] body, String secret)
            throws Exception {
        String amzDate = AMZ.format(ZonedDateTime.now(ZoneOffset.UTC));
        String scope = amzDate.substring(0, 8) + "/us-east-1/s3/aws4_request";
        String payloadHash = SigV4.hex(SigV4.sha256().digest(body));
        String host = "127.0.0.1:" + Integer.getInteger(PORT_PROPERTY);
        Map<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of(host));
        headers.put("x-amz-content-sha256", List.of(payloadHash));
        headers.put("x-amz-date", List.of(amzDate));
        List<String> signed = List.copyOf(headers.keySet());
        String canonical = SigV4.canonicalRequest(method, SigV4.canonicalUri(rawPath),
                SigV4.canonicalQuery(QueryString.parse(rawQuery), null), SigV4.canonicalHeaders(signed, headers),
                String.join(";", signed), payloadHash);
        String signature = SigV4.signature(SigV4.signingKey(secret, amzDate.substring(0, 8), "us-east-1", "s3"),
                SigV4.stringToSign(amzDate, scope, canonical));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + rawPath + (rawQuery.isEmpty() ? "" : "?" + rawQuery)))
                .timeout(Duration.ofSeconds(30))
                .header("x-amz-content-sha256", payloadHash)
                .header("x-amz-date", amzDate)
                .header("Authorization", SigV4.ALGORITHM + " Credential=" + AK + "/" + scope + ", SignedHeaders="
                        + String.join(";", signed) + ", Signature=" + signature)
                .method(method, body.length == 0 && !method.equals("PUT") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> send(String method, String rawPath, String rawQuery, byte[] body) throws Exception {
        return send(method, rawPath, rawQuery, body, SECRET);
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private HttpResponse<byte[]> awaitGateway() throws Exception {
        waitForService(ObjectStore.class, null);
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
        while (true) {
            try {
                HttpResponse<byte[]> r = send("GET", "/", "", new byte[0]);
                if (r.statusCode() == 200 || System.nanoTime() > deadline) {
                    return r;
                }
            } catch (java.io.IOException notYetListening) {
                if (System.nanoTime() > deadline) {
                    throw notYetListening;
                }
            }
            Thread.sleep(200);
        }
    }

    @Test
    public void servesS3OverRealHttp() throws Exception {
        HttpResponse<byte[]> list = awaitGateway();
        assertEquals(text(list), 200, list.statusCode());
        assertTrue(text(list), text(list).contains("<ListAllMyBucketsResult"));
        assertTrue(list.headers().firstValue("x-amz-request-id").isPresent());

        assertEquals(200, send("PUT", "/itbucket", "", new byte[0]).statusCode());
        byte[] data = new byte[1 << 20];
        new Random(14).nextBytes(data);
        HttpResponse<byte[]> put = send("PUT", "/itbucket/dir/a%2Fb//c", "", data);
        assertEquals(text(put), 200, put.statusCode());
        assertNotNull(put.headers().firstValue("ETag").orElse(null));

        HttpResponse<byte[]> got = send("GET", "/itbucket/dir/a%2Fb//c", "", new byte[0]);
        assertEquals(200, got.statusCode());
        assertArrayEquals(data, got.body());

        HttpResponse<byte[]> listed = send("GET", "/itbucket", "list-type=2", new byte[0]);
        assertTrue(text(listed), text(listed).contains("<Key>dir/a/b//c</Key>"));
        assertTrue(text(listed), text(listed).contains("<Size>" + data.length + "</Size>"));

        HttpResponse<byte[]> forged = send("PUT", "/itbucket/forged", "", data, SECRET + "x");
        assertEquals(403, forged.statusCode());
        assertTrue(text(forged), text(forged).contains("<Code>SignatureDoesNotMatch</Code>"));
        assertTrue(text(forged), text(forged).contains("<RequestId>"));
        assertEquals(404, send("GET", "/itbucket/forged", "", new byte[0]).statusCode());

        // ?acl answers the owner's grant since issue 25; versioning is still not implemented
        HttpResponse<byte[]> acl = send("GET", "/itbucket", "acl", new byte[0]);
        assertEquals(text(acl), 200, acl.statusCode());
        assertTrue(text(acl), text(acl).contains("<Permission>FULL_CONTROL</Permission>"));
        HttpResponse<byte[]> versioning = send("GET", "/itbucket", "versioning", new byte[0]);
        assertEquals(501, versioning.statusCode());
        assertTrue(text(versioning), text(versioning).contains("<Code>NotImplemented</Code>"));

        assertEquals(204, send("DELETE", "/itbucket/dir/a%2Fb//c", "", new byte[0]).statusCode());
        assertEquals(204, send("DELETE", "/itbucket", "", new byte[0]).statusCode());
    }

    /**
     * PID org.objrdma.s3 changed through Config Admin while the gateway serves: a valid max.put.bytes applies
     * live (a PUT above it is EntityTooLarge, one below it stored, the servlet service not re-registered); a
     * bad one is refused with one ERROR line naming the property, and the gateway keeps answering with the
     * value it had. The shipped value is restored at the end.
     */
    @Test
    public void aConfigurationChangeAppliesLiveAndABadValueIsRefusedKeepingTheOldOne() throws Exception {
        assertEquals(200, awaitGateway().statusCode());
        Object servletId = bundleContext.getServiceReferences(Servlet.class, "(component.name=org.objrdma.s3)")
                .iterator().next().getProperty(org.osgi.framework.Constants.SERVICE_ID);
        org.osgi.service.cm.ConfigurationAdmin ca = waitForService(org.osgi.service.cm.ConfigurationAdmin.class, null);
        org.osgi.service.cm.Configuration config = ca.getConfiguration("org.objrdma.s3", null);
        java.util.Dictionary<String, Object> shipped = config.getProperties();
        assertEquals(200, send("PUT", "/modbucket", "", new byte[0]).statusCode());
        try {
            java.util.Dictionary<String, Object> small = copy(shipped);
            small.put("max.put.bytes", "1000");
            config.update(small);
            await("max.put.bytes 1000 applied", SERVICE_TIMEOUT, () -> {
                try {
                    return text(send("PUT", "/modbucket/big", "", new byte[2000])).contains("<Code>EntityTooLarge</Code>");
                } catch (Exception e) {
                    return false;
                }
            });
            // the log appender may write the line a moment after the new gateway serves
            await("the live change logged", SERVICE_TIMEOUT, () -> logHasLine("org.objrdma.s3 reconfigured live"));
            // each update also changes the servlet's service properties, and Pax Web then registers the servlet
            // again: a request in that moment gets Jetty's 404, so every check below waits for its answer
            awaitAnswer("a PUT below the new limit stored", "/modbucket/small", 500, r -> r.statusCode() == 200);

            java.util.Dictionary<String, Object> bad = copy(shipped);
            bad.put("max.put.bytes", "-5");
            config.update(bad);
            await("the refusal logged", SERVICE_TIMEOUT, () -> logHasLine("Configuration of org.objrdma.s3 refused",
                    "max.put.bytes must be positive, was -5"));
            awaitAnswer("the old limit of 1000 still in force", "/modbucket/big", 2000, r -> r.statusCode() == 400
                    && text(r).contains("maximum allowed size of 1000 bytes"));
            awaitAnswer("a PUT below the old limit stored", "/modbucket/small2", 999, r -> r.statusCode() == 200);
            assertEquals(servletId, bundleContext.getServiceReferences(Servlet.class, "(component.name=org.objrdma.s3)")
                    .iterator().next().getProperty(org.osgi.framework.Constants.SERVICE_ID));
        } finally {
            config.update(copy(shipped));
        }
        await("the shipped max.put.bytes back", SERVICE_TIMEOUT, () -> {
            try {
                return send("PUT", "/modbucket/big", "", new byte[2000]).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
    }

    private void awaitAnswer(String what, String path, int size,
            java.util.function.Predicate<HttpResponse<byte[]>> expected) throws InterruptedException {
        await(what, SERVICE_TIMEOUT, () -> {
            try {
                return expected.test(send("PUT", path, "", new byte[size]));
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static java.util.Dictionary<String, Object> copy(java.util.Dictionary<String, Object> d) {
        java.util.Hashtable<String, Object> out = new java.util.Hashtable<>();
        for (java.util.Enumeration<String> keys = d.keys(); keys.hasMoreElements();) {
            String k = keys.nextElement();
            out.put(k, d.get(k));
        }
        return out;
    }
}
