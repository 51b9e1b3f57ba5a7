package org.objrdma.s3.internal;

import java.io.IOException;
import java.time.Clock;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.auth.Authentication;
import org.objrdma.s3.auth.PostPolicyAuthenticator;
import org.objrdma.s3.rdma.RdmaServices;

/** The entry from the exported gateway into the operations (which stay private to the bundle). */
public final class Dispatch {

    private Dispatch() {
    }

    public static void serve(S3Request request, S3Response response, QueryString query, Authentication auth,
            String bucket, String key, ObjectStore store, S3Settings settings, RdmaServices rdma)
            throws S3Exception, StoreException, IOException {
        Router.route(new Exchange(request, response, query, auth, bucket, key, store, settings, rdma));
    }

    /**
     * Whether to serve the request as anonymous ({@link AnonymousRoutes}): it carries no signature at all and
     * {@code public.access.enabled} is on. With the setting off an unsigned request goes to the authenticator, which
     * refuses it before any lookup.
     */
    public static boolean isServedAnonymously(S3Request request, QueryString query, S3Settings settings) {
        return settings.publicAccess() && AnonymousRoutes.isAnonymous(request, query);
    }

    /** Serves an anonymous request ({@link #isServedAnonymously}): only what the ACLs grant everyone. */
    public static void serveAnonymous(S3Request request, S3Response response, QueryString query, String bucket,
            String key, ObjectStore store, S3Settings settings) throws S3Exception, StoreException, IOException {
        AnonymousRoutes.route(request, response, query, bucket, key, store, settings);
    }

    /** True for the unsigned routes of cuObject over RC ({@code /.s3rdma-rc/...}), served without authentication. */
    public static boolean isUnsignedRoute(String bucket) {
        return RcConnectionRoutes.BUCKET.equals(bucket);
    }

    /** Serves an unsigned route ({@link #isUnsignedRoute}): connect or disconnect an RC connection. */
    public static void serveUnsigned(S3Request request, S3Response response, String key, RdmaServices rdma)
            throws S3Exception, IOException {
        RcConnectionRoutes.route(request, response, key, rdma);
    }

    /** The answer to an {@code OPTIONS} request (a CORS preflight), always an error: no bucket has CORS rules. */
    public static S3Exception corsPreflight(S3Request request) {
        return CorsPreflight.answer(request);
    }

    /** Whether the request is a browser POST upload, which carries its authentication in the form. */
    public static boolean isBrowserPost(S3Request request, QueryString query, String bucket, String key)
            throws S3Exception {
        return PostObjectOperations.isBrowserPost(request, query, bucket, key);
    }

    /** Serves a browser POST upload ({@link #isBrowserPost}): authenticated by its policy signature. */
    public static void servePostObject(S3Request request, S3Response response, QueryString query, String bucket,
            ObjectStore store, S3Settings settings, PostPolicyAuthenticator authenticator, Clock clock)
            throws S3Exception, StoreException, IOException {
        PostObjectOperations.post(request, response, query, bucket, store, settings, authenticator, clock);
    }
}
