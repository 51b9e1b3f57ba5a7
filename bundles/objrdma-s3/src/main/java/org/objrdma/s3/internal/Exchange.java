package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.OutputStream;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.auth.Authentication;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.xml.XmlWriter;

/** One authenticated request being served: what it names, who sent it, where the answer goes. */
final class Exchange {
    /** A host name, IPv4 or bracketed IPv6 literal, optional port: nothing that could change a URL's meaning. */
    private static final java.util.regex.Pattern HOST = java.util.regex.Pattern.compile(
            "(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]{2,45}\\])(?::[0-9]{1,5})?");

    final S3Request request;
    final S3Response response;
    final QueryString query;
    final Authentication auth;
    /** Null for service-level requests. */
    final String bucket;
    /** Null for service- and bucket-level requests. */
    final String key;
    final ObjectStore store;
    final S3Settings settings;
    /** The RDMA paths' services ({@link RdmaServices#NONE} for plain S3). */
    final RdmaServices rdma;
    /** No signature at all ({@link AnonymousRoutes}): only what an ACL grants everyone is served. */
    final boolean anonymous;
    /** Set when {@link #authorize} let a non-owner read an object by its ACL: the opened version is judged again. */
    private boolean objectReadByAcl;

    Exchange(S3Request request, S3Response response, QueryString query, Authentication auth, String bucket,
            String key, ObjectStore store, S3Settings settings, RdmaServices rdma) {
        this(request, response, query, auth, bucket, key, store, settings, rdma, false);
    }

    Exchange(S3Request request, S3Response response, QueryString query, Authentication auth, String bucket,
            String key, ObjectStore store, S3Settings settings, RdmaServices rdma, boolean anonymous) {
        this.anonymous = anonymous;
        this.request = request;
        this.response = response;
        this.query = query;
        this.auth = auth;
        this.bucket = bucket;
        this.key = key;
        this.store = store;
        this.settings = settings;
        this.rdma = rdma;
    }

    String header(String name) {
        return request.header(name);
    }

    /**
     * {@code https://host[:port]} or {@code http://host[:port]}: the origin this request addressed (its scheme from
     * the connection, its authority from the signed Host header), the prefix of absolute URLs in answers; empty
     * when there is no usable Host header, so such a URL stays relative.
     */
    String origin() {
        String host = header("Host");
        if (host == null || !HOST.matcher(host).matches()) {
            return "";
        }
        return (request.secure() ? "https://" : "http://") + host;
    }

    /**
     * Lets the request go on if its principal may do {@code action}: the store's owner check, else (a non-owner,
     * or an anonymous request) what the ACLs grant ({@link AccessControl}); else 403 AccessDenied.
     */
    void authorize(StoreAction action, String bucket, String key) throws S3Exception, StoreException {
        if (!anonymous && store.isAuthorized(auth.accessKeyId(), action, bucket, key)) {
            return;
        }
        if (AccessControl.grants(this, action, bucket, key)) {
            objectReadByAcl |= action == StoreAction.GET_OBJECT;
            return;
        }
        throw denied(action, bucket, key);
    }

    void authorize(StoreAction action) throws S3Exception, StoreException {
        authorize(action, bucket, key);
    }

    /** The store's owner check alone, for what no ACL ever grants (reading or changing an ACL). */
    void authorizeOwner(StoreAction action) throws S3Exception {
        if (anonymous || !store.isAuthorized(auth.accessKeyId(), action, bucket, key)) {
            throw denied(action, bucket, key);
        }
    }

    /**
     * After an object was opened: if an ACL (not ownership) let this request read it, the version opened must
     * grant that read too (it may have replaced the one judged by {@link #authorize}), else 403 AccessDenied.
     */
    void checkOpenedReadable(org.objrdma.api.store.ObjectInfo opened) throws S3Exception {
        if (objectReadByAcl && !AccessControl.grantsRead(this, opened)) {
            throw denied(StoreAction.GET_OBJECT, bucket, key);
        }
    }

    private S3Exception denied(StoreAction action, String bucket, String key) {
        return new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: "
                + (anonymous ? "an anonymous request" : auth.accessKeyId()) + " may not " + action
                + (bucket == null ? "" : " on " + bucket + (key == null ? "" : "/" + key)));
    }

    /** An integer query parameter with a default; a malformed or out-of-range value is InvalidArgument. */
    int intParam(String name, int dflt, int min, int max) throws S3Exception {
        String v = query.get(name);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    name + " must be an integer between " + min + " and " + max + ", was '" + v + "'");
        }
    }

    void sendXml(int status, XmlWriter xml) throws IOException {
        byte[] body = xml.toBytes();
        response.status(status);
        response.header("Content-Type", "application/xml");
        response.contentLength(body.length);
        try (OutputStream out = response.body()) {
            out.write(body);
        }
    }

    void sendEmpty(int status) throws IOException {
        response.status(status);
        response.contentLength(0);
        response.body().close();
    }
}
