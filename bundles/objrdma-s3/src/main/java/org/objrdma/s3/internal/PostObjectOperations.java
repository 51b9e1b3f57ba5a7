package org.objrdma.s3.internal;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.objrdma.api.store.CannedAcl;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.WriteCondition;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.UriEncoding;
import org.objrdma.s3.auth.Authentication;
import org.objrdma.s3.auth.PostPolicyAuthenticator;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.xml.XmlWriter;

/**
 * PostObject, S3's browser-based upload: an HTML form POSTed to the bucket as {@code multipart/form-data}, its
 * fields (key, policy, signature, Content-Type, x-amz-meta-*, success_action_status / _redirect, ...) before
 * the file. The policy's signature ({@link PostPolicyAuthenticator}) says who uploads; the policy
 * ({@link PostPolicy}) bounds what: its conditions over the fields, its expiration, the file's size range. Then
 * the file is stored as a PutObject with those fields as headers would be: the owner check, the store's size
 * limit and the declared checksums apply the same way, and a failure stores nothing.
 */
final class PostObjectOperations {

    /**
     * The most bytes all fields before the file may take together, names and values (S3's limit for the form's
     * fields); it bounds the memory a form holds before its signature is checked.
     */
    static final int MAX_FIELD_BYTES = 20 * 1024;
    /** Form fields that sign a form (SigV4's, SigV2's, the policy); a form with none of them is anonymous. */
    private static final Set<String> SIGNING_FIELDS = Set.of("policy", "x-amz-algorithm", "x-amz-signature",
            "x-amz-credential", "signature", "awsaccesskeyid");

    private PostObjectOperations() {
    }

    /** Whether the request is a browser POST upload: a form POSTed to a bucket itself, no sub-resource. */
    static boolean isBrowserPost(S3Request request, QueryString query, String bucket, String key) throws S3Exception {
        return request.method().equals("POST") && bucket != null && key == null && !RcRoutes.BUCKET.equals(bucket)
                && query.params().isEmpty() && FormDataReader.boundary(request.header("Content-Type")) != null;
    }

    static void post(S3Request request, S3Response response, QueryString query, String bucket, ObjectStore store,
            S3Settings settings, PostPolicyAuthenticator authenticator, Clock clock)
            throws S3Exception, StoreException, IOException {
        FormDataReader form = new FormDataReader(request.body(), FormDataReader.boundary(request.header("Content-Type")));
        Map<String, String> fields = new LinkedHashMap<>();
        int budget = MAX_FIELD_BYTES;
        FormDataReader.PartHeaders part;
        while ((part = form.next()) != null && !part.name().equalsIgnoreCase("file")) {
            String name = part.name().toLowerCase(Locale.ROOT);
            // names count too: many parts with empty values must not grow the map without bound
            budget -= name.length();
            if (budget < 0) {
                throw new S3Exception(S3ErrorCode.MAX_MESSAGE_LENGTH_EXCEEDED,
                        "The form fields before the file may have at most " + MAX_FIELD_BYTES + " bytes");
            }
            byte[] value = form.contentBytes(budget, name);
            budget -= value.length;
            if (fields.putIfAbsent(name, new String(value, StandardCharsets.UTF_8)) != null) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The form field '" + name + "' is sent twice");
            }
        }
        if (part == null) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "POST requires exactly one file upload per request (a form field named 'file', after the others)");
        }
        // a form without policy and signature is anonymous: served only with public access on, into a bucket whose
        // ACL lets everyone write (public-read-write); else the authenticator refuses it
        boolean anonymous = settings.publicAccess() && java.util.Collections.disjoint(fields.keySet(), SIGNING_FIELDS);
        Authentication auth = anonymous ? AnonymousRoutes.ANONYMOUS : authenticator.authenticate(fields);
        String key = fields.get("key");
        if (key == null || key.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Bucket POST must contain a field named 'key'. If it "
                    + "is specified, please check the order of the fields (they must come before the file).");
        }
        // S3 puts the file's name in for ${filename}; the policy judges the key that results
        key = key.replace("${filename}", part.filename() == null ? "" : part.filename());
        fields.put("key", key);
        long minLength = 0;
        long maxLength = settings.maxPutBytes();
        if (!anonymous) {
            PostPolicy policy = PostPolicy.parse(fields.get("policy"));
            policy.check(clock.instant(), fields, bucket);
            minLength = policy.minLength();
            maxLength = Math.min(policy.maxLength(), maxLength);
        }
        CannedAcl acl = CannedAcls.check(fields.get("acl"), settings, store);
        Exchange x = new Exchange(new FormFieldsRequest(request, fields), response, query, auth, bucket, key, store,
                settings, RdmaServices.NONE, anonymous);
        x.authorize(StoreAction.PUT_OBJECT);
        BoundedBodyStream file = new BoundedBodyStream(form.content(), minLength, maxLength);
        Bodies.Body body = Bodies.arrived(x, file, -1);
        PutResult result = store.put(bucket, key, body.stream(), -1, new PutOptions(
                Attributes.from(x.request).withAcl(acl), body.checksums(), body.verifier(), WriteCondition.NONE));
        answer(x, fields, result);
    }

    /** S3's answers: a redirect when asked for, else 200 empty, 201 with a PostResponse, or 204 (the default). */
    private static void answer(Exchange x, Map<String, String> fields, PutResult result) throws IOException {
        String etag = Http.quote(result.etag());
        String location = x.origin() + "/" + UriEncoding.encode(x.bucket, false) + "/" + UriEncoding.encode(x.key, true);
        x.response.header("ETag", etag);
        x.response.header("Location", location);
        Attributes.writeChecksums(x.response, result.checksums());
        String redirect = fields.getOrDefault("success_action_redirect", fields.get("redirect"));
        if (redirect != null && isHttpUrl(redirect)) {
            x.response.header("Location", redirect + (redirect.contains("?") ? "&" : "?")
                    + "bucket=" + UriEncoding.encode(x.bucket, false) + "&key=" + UriEncoding.encode(x.key, false)
                    + "&etag=" + UriEncoding.encode(etag, false));
            x.sendEmpty(303);
            return;
        }
        switch (fields.getOrDefault("success_action_status", "")) {
            case "200" -> x.sendEmpty(200);
            case "201" -> x.sendXml(201, XmlWriter.document("PostResponse", false)
                    .element("Location", location)
                    .element("Bucket", x.bucket)
                    .element("Key", x.key)
                    .element("ETag", etag));
            default -> x.sendEmpty(204);
        }
    }

    /** S3 redirects only to an absolute http(s) URL; anything else is ignored and the status answers. */
    private static boolean isHttpUrl(String s) {
        try {
            URI u = new URI(s);
            return u.isAbsolute() && u.getHost() != null
                    && (u.getScheme().equalsIgnoreCase("http") || u.getScheme().equalsIgnoreCase("https"));
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
