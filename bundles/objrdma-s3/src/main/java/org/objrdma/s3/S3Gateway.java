package org.objrdma.s3;

import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.auth.Authentication;
import org.objrdma.s3.auth.PostPolicyAuthenticator;
import org.objrdma.s3.auth.RequestAuthenticator;
import org.objrdma.s3.internal.Dispatch;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.xml.XmlWriter;
import org.objrdma.api.store.ObjectStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves S3 requests against an {@link ObjectStore}: parses the target (path style, or virtual-host style
 * under {@link S3Settings#virtualHostDomain()}) from the raw URI, authenticates (SigV4; SigV2 unless
 * {@link S3Settings#acceptSigV2()} is off; a browser POST upload by its form's signed policy), runs the
 * operation, and answers every failure as S3 XML with {@code Code}, {@code Message}, {@code Resource} and
 * {@code RequestId}; every response carries {@code x-amz-request-id}. Thread-safe; one per store and
 * configuration.
 */
public final class S3Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(S3Gateway.class);
    private static final SecureRandom IDS = new SecureRandom();

    private final ObjectStore store;
    private final S3Settings settings;
    private final RequestAuthenticator authenticator;
    private final PostPolicyAuthenticator postAuthenticator;
    private final Clock clock;
    private final RdmaServices rdma;
    private final Consumer<String> errorAnswered;

    /** Plain S3: RDMA requests are declined (cuObject) or answered 503 (hipobj-rc-v2). */
    public S3Gateway(ObjectStore store, S3Settings settings, Clock clock) {
        this(store, settings, clock, RdmaServices.NONE);
    }

    /** S3 with both RDMA paths served by {@code rdma}'s services while they are present. */
    public S3Gateway(ObjectStore store, S3Settings settings, Clock clock, RdmaServices rdma) {
        this(store, settings, clock, rdma, code -> { });
    }

    /**
     * As above, and {@code errorAnswered} is told the S3 error code ({@code AccessDenied}, {@code NoSuchKey},
     * ...) of every error answer, before the answer is written (a listener that throws is logged, and the
     * answer still goes out).
     *
     * @since 1.1
     */
    public S3Gateway(ObjectStore store, S3Settings settings, Clock clock, RdmaServices rdma,
            Consumer<String> errorAnswered) {
        this.errorAnswered = Objects.requireNonNull(errorAnswered, "errorAnswered");
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.rdma = Objects.requireNonNull(rdma, "rdma");
        this.authenticator = new RequestAuthenticator(settings.region(), settings.maxClockSkew(), settings.acceptSigV2(),
                clock, store::secretKey);
        this.postAuthenticator = new PostPolicyAuthenticator(settings.region(), settings.acceptSigV2(), store::secretKey);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public S3Settings settings() {
        return settings;
    }

    /** Serves one request; never throws for an S3-level failure (only when the response cannot be written). */
    public void handle(S3Request request, S3Response response) throws IOException {
        byte[] id = new byte[8];
        IDS.nextBytes(id);
        String requestId = HexFormat.of().withUpperCase().formatHex(id);
        response.header("x-amz-request-id", requestId);
        response.header("x-amz-id-2", requestId);
        response.header("Server", "objrdma");
        try {
            QueryString query = QueryString.parse(request.rawQuery());
            Target target = Target.of(request, settings.virtualHostDomain());
            if (request.method().equals("OPTIONS")) {
                throw Dispatch.corsPreflight(request);
            }
            if (!target.virtualHost() && Dispatch.isUnsignedRoute(target.bucket())) {
                // cuObject over RC: its client library connects and disconnects unsigned; a connection grants
                // nothing until a signed object request binds it (RcConnectionTable)
                Dispatch.serveUnsigned(request, response, target.key(), rdma);
                return;
            }
            if (Dispatch.isBrowserPost(request, query, target.bucket(), target.key())) {
                // a browser form carries no signed headers: its policy is signed, checked with the form
                Dispatch.servePostObject(request, response, query, target.bucket(), store, settings, postAuthenticator,
                        clock);
                return;
            }
            if (Dispatch.isServedAnonymously(request, query, settings)) {
                // public access on, no signature: only what an ACL grants everyone (never the RDMA routes)
                Dispatch.serveAnonymous(request, response, query, target.bucket(), target.key(), store, settings);
                return;
            }
            Authentication auth = authenticator.authenticate(request, query, target.bucket(), target.virtualHost());
            Dispatch.serve(request, response, query, auth, target.bucket(), target.key(), store, settings,
                    rdma);
        } catch (S3Exception e) {
            error(request, response, e.code(), e.status(), e.getMessage(), requestId);
        } catch (S3BodyException e) {
            error(request, response, e.s3().code(), e.s3().status(), e.s3().getMessage(), requestId);
        } catch (StoreException e) {
            if (e.error() == StoreError.NOT_MODIFIED) {
                response.status(304);
                response.contentLength(0);
                response.body().close();
                return;
            }
            if (e.error() == StoreError.INTERNAL_ERROR) {
                LOG.warn("Store failure on {} {} (request {})", request.method(), request.rawPath(), requestId, e);
            }
            error(request, response, e.error().s3Code(), e.error().httpStatus(), e.detail(), requestId);
        } catch (RuntimeException e) {
            LOG.error("Failure serving {} {} (request {})", request.method(), request.rawPath(), requestId, e);
            error(request, response, S3ErrorCode.INTERNAL_ERROR.code(), 500, S3ErrorCode.INTERNAL_ERROR.defaultMessage(),
                    requestId);
        }
    }

    private void error(S3Request request, S3Response response, String code, int status, String message,
            String requestId) throws IOException {
        try {
            errorAnswered.accept(code);
        } catch (RuntimeException e) {
            // counting must never cost the client its answer
            LOG.warn("Error listener failed for {} (request {})", code, requestId, e);
        }
        response.status(status);
        if (carriesBody(request)) {
            // the body was refused, maybe part read: whatever follows it on this connection (the rest of it, a
            // client's stray bytes past a wrong Content-Length) cannot be trusted to start the next request
            response.header("Connection", "close");
        }
        if (request.method().equals("HEAD")) {
            // HEAD answers carry no body; the status (and the request id) is all a client gets
            response.contentLength(0);
            response.body().close();
            return;
        }
        byte[] body = XmlWriter.document("Error", false)
                .element("Code", code)
                .element("Message", message)
                .element("Resource", request.rawPath())
                .element("RequestId", requestId)
                .toBytes();
        response.header("Content-Type", "application/xml");
        response.contentLength(body.length);
        try (OutputStream out = response.body()) {
            out.write(body);
        }
    }

    private static boolean carriesBody(S3Request request) {
        String length = request.header("Content-Length");
        return request.header("Transfer-Encoding") != null || length != null && !length.strip().equals("0");
    }

    /** Bucket and key of a request, decoded from the raw path; {@code virtualHost} when the Host named the bucket. */
    record Target(String bucket, String key, boolean virtualHost) {

        static Target of(S3Request request, String virtualHostDomain) throws S3Exception {
            String path = request.rawPath();
            if (!path.startsWith("/")) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The request path must start with '/'");
            }
            String host = hostWithoutPort(request.header("Host"));
            if (!virtualHostDomain.isEmpty() && host != null && host.endsWith("." + virtualHostDomain)) {
                String bucket = host.substring(0, host.length() - virtualHostDomain.length() - 1);
                String key = UriEncoding.decodePath(path.substring(1));
                return new Target(bucket, key.isEmpty() ? null : key, true);
            }
            String rest = path.substring(1);
            if (rest.isEmpty()) {
                return new Target(null, null, false);
            }
            int slash = rest.indexOf('/');
            String bucket = UriEncoding.decodePath(slash < 0 ? rest : rest.substring(0, slash));
            String key = slash < 0 ? "" : UriEncoding.decodePath(rest.substring(slash + 1));
            return new Target(bucket, key.isEmpty() ? null : key, false);
        }

        private static String hostWithoutPort(String host) {
            if (host == null) {
                return null;
            }
            String h = host.strip().toLowerCase(Locale.ROOT);
            if (h.startsWith("[")) {
                return h;
            }
            int colon = h.lastIndexOf(':');
            return colon < 0 ? h : h.substring(0, colon);
        }
    }
}
