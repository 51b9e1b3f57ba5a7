package org.objrdma.s3.internal;

import java.io.IOException;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.auth.Authentication;
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

    /** True for the unsigned routes of cuObject over RC ({@code /.s3rdma-rc/...}), served without authentication. */
    public static boolean isUnsignedRoute(String bucket) {
        return RcConnectionRoutes.BUCKET.equals(bucket);
    }

    /** Serves an unsigned route ({@link #isUnsignedRoute}): connect or disconnect an RC connection. */
    public static void serveUnsigned(S3Request request, S3Response response, String key, RdmaServices rdma)
            throws S3Exception, IOException {
        RcConnectionRoutes.route(request, response, key, rdma);
    }
}
