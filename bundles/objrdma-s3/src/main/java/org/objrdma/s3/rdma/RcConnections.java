package org.objrdma.s3.rdma;

/**
 * The cuObject-over-RC connections a gateway serves ({@code POST /.s3rdma-rc/connect}, the client library of
 * elbencho's {@code cuobjclient-shim} and clients like it): one verbs RC queue pair per connection, made for a
 * client that has no DC transport. The owner of the gateway creates one, hands it in {@link RdmaServices} and
 * closes it when the gateway stops; it outlives a reconfigured gateway, so connections survive a settings change.
 *
 * @since 1.2.0
 */
public interface RcConnections extends AutoCloseable {

    /** No connections: {@code /.s3rdma-rc/connect} answers {@code 503}, an {@code rc:} token is refused. */
    RcConnections NONE = new RcConnections() {
        @Override
        public int open() {
            return 0;
        }

        @Override
        public void close() {
        }
    };

    /** How many connections are open now. */
    int open();

    /** Ends every connection (its queue pair closes); later connects answer {@code 503}. Idempotent. */
    @Override
    void close();
}
