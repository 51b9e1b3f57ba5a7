package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Canned ACLs and anonymous access (issue 25): with {@code public.access.enabled} off (the default, S3's Block
 * Public Access) every anonymous request is refused before any lookup and public ACLs are refused; with it on an
 * anonymous request gets exactly what an ACL grants everyone, another user what it grants signed-in users, and
 * nothing reaches the owner-only operations or the RDMA routes. The ACLs live in the file store's records and
 * survive a restart.
 */
class PublicAccessTest {
    private static final String ALT = "ALTUSERACCESSKEY0001";
    private static final String ALT_SECRET = "altUserSecretKey000000000000000000000001";
    private static final byte[] DATA = "public bytes".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path root;
    private EmbeddedStore store;

    @AfterEach
    void stop() {
        if (store != null) {
            store.close();
        }
    }

    private S3Gateway open(boolean publicAccess) throws IOException {
        if (store != null) {
            store.close();
        }
        store = EmbeddedStores.filesystem(root, Map.of(SdkSigner.AK, SdkSigner.SECRET, ALT, ALT_SECRET),
                1L << 30, false);
        return new S3Gateway(store, S3Settings.DEFAULTS.withPublicAccess(publicAccess), Clock.systemUTC());
    }

    private static TestResponse call(S3Gateway g, TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        g.handle(r, out);
        return out;
    }

    private static TestResponse owner(S3Gateway g, String method, String path, String query, byte[] body,
            String... headers) throws IOException {
        return call(g, SdkSigner.sign(method, path, query, body, Body.SIGNED_HASH, Instant.now(), headers));
    }

    private static TestResponse alt(S3Gateway g, String method, String path, String query) throws IOException {
        return call(g, SdkSigner.signAs(ALT, ALT_SECRET, "127.0.0.1", method, path, query, null, Body.SIGNED_HASH,
                Instant.now()));
    }

    private static TestResponse anonymous(S3Gateway g, String method, String path, String query, byte[] body,
            String... headers) throws IOException {
        TestRequest r = new TestRequest(method, path, query).header("Host", "127.0.0.1");
        for (int i = 0; i < headers.length; i += 2) {
            r.header(headers[i], headers[i + 1]);
        }
        if (body != null) {
            r.header("Content-Length", String.valueOf(body.length)).body(body);
        }
        return call(g, r);
    }

    private static void assertError(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    private static void ok(TestResponse r) {
        assertEquals(200, r.status, r.text());
    }

    @Test
    void byDefaultAnonymousRequestsAndPublicAclsAreRefusedBeforeAnyLookup() throws Exception {
        S3Gateway g = open(false);
        ok(owner(g, "PUT", "/bkt", "", new byte[0]));
        ok(owner(g, "PUT", "/bkt/obj", "", DATA));
        assertError(anonymous(g, "GET", "/bkt/obj", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "GET", "/nosuchbucket/obj", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "GET", "/bkt", "", null), 403, "AccessDenied");
        // public ACLs are S3's Block Public Access answer, and change nothing
        assertError(owner(g, "PUT", "/bkt/pub", "", DATA, "x-amz-acl", "public-read"), 403, "AccessDenied");
        assertError(owner(g, "GET", "/bkt/pub", "", null), 404, "NoSuchKey");
        assertError(owner(g, "PUT", "/bkt", "acl", new byte[0], "x-amz-acl", "public-read-write"), 403,
                "AccessDenied");
        assertError(owner(g, "PUT", "/open", "", new byte[0], "x-amz-acl", "authenticated-read"), 403, "AccessDenied");
        assertEquals(404, owner(g, "HEAD", "/open", "", null).status, "the bucket was not created");
        assertFalse(owner(g, "GET", "/bkt", "acl", null).text().contains("Group"));
        // owner-only canned ACLs are served and kept
        ok(owner(g, "PUT", "/bkt/own", "", DATA, "x-amz-acl", "bucket-owner-full-control"));
        assertError(owner(g, "PUT", "/bkt/x", "", DATA, "x-amz-acl", "no-such-acl"), 400, "InvalidArgument");
        assertError(owner(g, "PUT", "/bkt/x", "", DATA, "x-amz-acl", "log-delivery-write"), 501, "NotImplemented");
        assertError(owner(g, "GET", "/bkt/x", "", null), 404, "NoSuchKey");
    }

    @Test
    void aPublicReadObjectIsReadableAnonymouslyAndAPrivateOneIsNot() throws Exception {
        S3Gateway g = open(true);
        ok(owner(g, "PUT", "/bkt", "", new byte[0]));
        ok(owner(g, "PUT", "/bkt/pub", "", DATA, "x-amz-acl", "public-read"));
        ok(owner(g, "PUT", "/bkt/priv", "", DATA));
        TestResponse got = anonymous(g, "GET", "/bkt/pub", "", null);
        ok(got);
        assertArrayEquals(DATA, got.bytes());
        ok(anonymous(g, "HEAD", "/bkt/pub", "", null));
        assertError(anonymous(g, "GET", "/bkt/priv", "", null), 403, "AccessDenied");
        // a private bucket does not tell an anonymous caller which keys exist, nor list them
        assertError(anonymous(g, "GET", "/bkt/missing", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "GET", "/bkt", "list-type=2", null), 403, "AccessDenied");
        // another user reads what everyone may read, and no more
        ok(alt(g, "GET", "/bkt/pub", ""));
        assertError(alt(g, "GET", "/bkt/priv", ""), 403, "AccessDenied");
        // the ACL names its grants; only the owner reads or changes it
        String acl = owner(g, "GET", "/bkt/pub", "acl", null).text();
        assertTrue(acl.contains("<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI>"), acl);
        assertTrue(acl.contains("<Permission>READ</Permission>"), acl);
        assertError(anonymous(g, "GET", "/bkt/pub", "acl", null), 403, "AccessDenied");
        assertError(alt(g, "GET", "/bkt/pub", "acl"), 403, "AccessDenied");
        // made private again: the anonymous read ends, the bytes stay
        ok(owner(g, "PUT", "/bkt/pub", "acl", new byte[0], "x-amz-acl", "private"));
        assertError(anonymous(g, "GET", "/bkt/pub", "", null), 403, "AccessDenied");
        assertArrayEquals(DATA, owner(g, "GET", "/bkt/pub", "", null).bytes());
        // a deleted bucket is NoSuchBucket to anyone once public access is on (as S3)
        assertError(anonymous(g, "GET", "/gone/obj", "", null), 404, "NoSuchBucket");
    }

    @Test
    void anAnonymousPutNeedsAPublicReadWriteBucketAndIsOwnedByTheBucketOwner() throws Exception {
        S3Gateway g = open(true);
        ok(owner(g, "PUT", "/rwb", "", new byte[0], "x-amz-acl", "public-read-write"));
        ok(owner(g, "PUT", "/rob", "", new byte[0], "x-amz-acl", "public-read"));
        ok(anonymous(g, "PUT", "/rwb/anon", "", DATA));
        assertArrayEquals(DATA, owner(g, "GET", "/rwb/anon", "", null).bytes());
        assertError(anonymous(g, "GET", "/rwb/anon", "", null), 403, "AccessDenied");
        String listing = anonymous(g, "GET", "/rwb", "", null).text();
        assertTrue(listing.contains("<Key>anon</Key>"), listing);
        assertTrue(listing.contains("<ID>" + SdkSigner.AK + "</ID>"), listing);
        assertError(anonymous(g, "PUT", "/rob/anon", "", DATA), 403, "AccessDenied");
        assertError(owner(g, "GET", "/rob/anon", "", null), 404, "NoSuchKey");
        assertError(anonymous(g, "PUT", "/rwb/copy", "", new byte[0], "x-amz-copy-source", "/rob/x"), 403,
                "AccessDenied");
        // owner-only operations and the RDMA routes stay closed whatever the bucket's ACL
        assertError(anonymous(g, "POST", "/rwb/mp", "uploads", new byte[0]), 403, "AccessDenied");
        assertError(anonymous(g, "PUT", "/rwb", "acl", new byte[0], "x-amz-acl", "public-read-write"), 403,
                "AccessDenied");
        assertError(anonymous(g, "DELETE", "/rwb", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "GET", "/", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "PUT", "/rwb/rdma", "", DATA, "x-amz-rdma-token", "x"), 403, "AccessDenied");
        assertError(owner(g, "GET", "/rwb/rdma", "", null), 404, "NoSuchKey");
        assertEquals(204, anonymous(g, "DELETE", "/rwb/anon", "", null).status);
        assertError(owner(g, "GET", "/rwb/anon", "", null), 404, "NoSuchKey");
        ok(owner(g, "PUT", "/rob/kept", "", DATA));
        assertError(anonymous(g, "DELETE", "/rob/kept", "", null), 403, "AccessDenied");
        ok(owner(g, "GET", "/rob/kept", "", null));
    }

    @Test
    void authenticatedReadIsForSignedInUsersOnly() throws Exception {
        S3Gateway g = open(true);
        ok(owner(g, "PUT", "/bkt", "", new byte[0], "x-amz-acl", "authenticated-read"));
        ok(owner(g, "PUT", "/bkt/obj", "", DATA, "x-amz-acl", "authenticated-read"));
        ok(alt(g, "GET", "/bkt/obj", ""));
        ok(alt(g, "GET", "/bkt", ""));
        assertError(anonymous(g, "GET", "/bkt/obj", "", null), 403, "AccessDenied");
        assertError(anonymous(g, "GET", "/bkt", "", null), 403, "AccessDenied");
        String acl = owner(g, "GET", "/bkt", "acl", null).text();
        assertTrue(acl.contains("<URI>http://acs.amazonaws.com/groups/global/AuthenticatedUsers</URI>"), acl);
    }

    @Test
    void aCopyGetsItsOwnAclNeverTheSources() throws Exception {
        S3Gateway g = open(true);
        ok(owner(g, "PUT", "/bkt", "", new byte[0]));
        ok(owner(g, "PUT", "/bkt/pub", "", DATA, "x-amz-acl", "public-read", "x-amz-meta-a", "1"));
        ok(owner(g, "PUT", "/bkt/plain-copy", "", new byte[0], "x-amz-copy-source", "/bkt/pub"));
        assertError(anonymous(g, "GET", "/bkt/plain-copy", "", null), 403, "AccessDenied");
        ok(owner(g, "PUT", "/bkt/priv", "", DATA, "x-amz-meta-b", "2"));
        ok(owner(g, "PUT", "/bkt/public-copy", "", new byte[0], "x-amz-copy-source", "/bkt/priv",
                "x-amz-acl", "public-read"));
        TestResponse got = anonymous(g, "GET", "/bkt/public-copy", "", null);
        ok(got);
        assertEquals("2", got.header("x-amz-meta-b"), "the COPY directive kept the source's headers");
        assertError(anonymous(g, "GET", "/bkt/priv", "", null), 403, "AccessDenied");
    }

    @Test
    void aclsSurviveARestartAndAreIgnoredOncePublicAccessIsOff() throws Exception {
        S3Gateway g = open(true);
        ok(owner(g, "PUT", "/bkt", "", new byte[0], "x-amz-acl", "public-read"));
        ok(owner(g, "PUT", "/bkt/pub", "", DATA, "x-amz-acl", "public-read"));
        TestResponse created = owner(g, "POST", "/bkt/mp", "uploads", new byte[0], "x-amz-acl", "public-read");
        ok(created);
        String uploadId = created.text().replaceAll("(?s).*<UploadId>([^<]+)</UploadId>.*", "$1");
        TestResponse part = owner(g, "PUT", "/bkt/mp", "partNumber=1&uploadId=" + uploadId, DATA);
        ok(part);
        g = open(true);
        ok(anonymous(g, "GET", "/bkt/pub", "", null));
        ok(anonymous(g, "GET", "/bkt", "", null));
        // the upload kept the ACL it was created with: the object it completes into is public
        ok(owner(g, "POST", "/bkt/mp", "uploadId=" + uploadId, ("<CompleteMultipartUpload><Part><PartNumber>1"
                + "</PartNumber><ETag>" + part.header("ETag") + "</ETag></Part></CompleteMultipartUpload>")
                .getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals(DATA, anonymous(g, "GET", "/bkt/mp", "", null).bytes());
        g = open(false);
        assertError(anonymous(g, "GET", "/bkt/pub", "", null), 403, "AccessDenied");
        assertError(alt(g, "GET", "/bkt/pub", ""), 403, "AccessDenied");
        assertError(alt(g, "GET", "/bkt", ""), 403, "AccessDenied");
    }

    private static TestResponse anonymousForm(S3Gateway g, String bucket, String acl) throws IOException {
        String boundary = "AnonFormBoundary";
        StringBuilder b = new StringBuilder();
        b.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nform.txt\r\n");
        b.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"acl\"\r\n\r\n")
                .append(acl).append("\r\n");
        b.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n"
                + "Content-Type: text/plain\r\n\r\nbar\r\n--").append(boundary).append("--\r\n");
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        return call(g, new TestRequest("POST", "/" + bucket, "").header("Host", "127.0.0.1")
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .header("Content-Length", String.valueOf(body.length)).body(body));
    }

    @Test
    void anAnonymousBrowserFormUploadsOnlyIntoAPublicReadWriteBucket() throws Exception {
        S3Gateway off = open(false);
        ok(owner(off, "PUT", "/rwb", "", new byte[0]));
        assertError(anonymousForm(off, "rwb", "private"), 403, "AccessDenied");
        S3Gateway g = open(true);
        assertError(anonymousForm(g, "rwb", "private"), 403, "AccessDenied");
        assertError(owner(g, "GET", "/rwb/form.txt", "", null), 404, "NoSuchKey");
        ok(owner(g, "PUT", "/rwb", "acl", new byte[0], "x-amz-acl", "public-read-write"));
        assertEquals(204, anonymousForm(g, "rwb", "public-read").status);
        assertEquals("bar", anonymous(g, "GET", "/rwb/form.txt", "", null).text());
        assertError(anonymousForm(g, "rwb", "not-an-acl"), 400, "InvalidArgument");
    }
}
