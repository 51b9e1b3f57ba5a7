package org.objrdma.client;

/**
 * The caller's HTTP layer, as cuObject's {@code CUObjIOOps} get / put callbacks: sends one request and returns
 * what the server reported. May run on any thread the caller chooses; it is called once per request, in order.
 */
@FunctionalInterface
public interface CuObjRequestHandler {
    /**
     * Sends {@code request} (e.g. an S3 request with {@code x-amz-rdma-token: request.headerValue()}).
     *
     * @return bytes the server moved ({@code x-amz-rdma-bytes-transferred} of a GET, the request size of a
     *         successful PUT), or a negative errno ({@code -Errno.ECONNRESET}, …) when the request failed
     */
    long transfer(CuObjRequest request);
}
