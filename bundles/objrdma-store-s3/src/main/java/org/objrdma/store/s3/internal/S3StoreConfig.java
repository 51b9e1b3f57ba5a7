package org.objrdma.store.s3.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Metatype of PID {@code org.objrdma.store.s3}; the values are parsed and checked by {@link S3StoreSettings}. */
@ObjectClassDefinition(name = "objrdma S3 object store adapter",
        description = "The store SPI over a remote S3-compatible service, reached with one service credential.")
@interface S3StoreConfig {
    @AttributeDefinition(name = "endpoint", description = "http:// or https:// URI of the remote S3 service, "
            + "e.g. https://rgw.example:443; or several, comma-separated, of one cluster (e.g. its RGWs): the first "
            + "is used while it answers, the next when it fails. Required.")
    String endpoint();

    @AttributeDefinition(name = "region", description = "Signing region (SigV4).")
    String region() default "us-east-1";

    @AttributeDefinition(name = "path.style", description = "true: http://endpoint/bucket/key; false: "
            + "virtual-host style http://bucket.endpoint/key (needs wildcard DNS).")
    boolean path_style() default true;

    @AttributeDefinition(name = "service.access.key", description = "The one credential the adapter signs "
            + "every remote request with.")
    String service_access_key();

    @AttributeDefinition(name = "service.secret.key", type = AttributeType.PASSWORD,
            description = "Secret of service.access.key.")
    String service_secret_key();

    @AttributeDefinition(name = "tls.truststore", description = "PKCS12 trust store for https endpoints; "
            + "empty: the JDK's default trust.")
    String tls_truststore() default "";

    @AttributeDefinition(name = "tls.truststore.password", type = AttributeType.PASSWORD,
            description = "Password of tls.truststore.")
    String tls_truststore_password() default "";

    @AttributeDefinition(name = "max.connections", description = "HTTP connection pool size, 1..4096.")
    int max_connections() default 64;

    @AttributeDefinition(name = "connect.timeout.ms", description = "TCP connect timeout, 1..600000 ms.")
    int connect_timeout_ms() default 5000;

    @AttributeDefinition(name = "read.timeout.ms", description = "Socket read timeout, 1..3600000 ms.")
    int read_timeout_ms() default 60000;

    @AttributeDefinition(name = "max.retries", description = "Retries of a failed remote call on one endpoint "
            + "(SDK standard retry mode, with backoff), 0..20; with several endpoints the call then moves on.")
    int max_retries() default 3;

    @AttributeDefinition(name = "failover.cooldown.ms", description = "With several endpoints: how long one that "
            + "failed is passed over before it is tried again, 0..3600000 ms.")
    int failover_cooldown_ms() default 30000;

    @AttributeDefinition(name = "catalog.cache.ms", description = "How long a bucket's owner, once read from the"
            + " system bucket, is trusted for authorizing object requests without reading it again, 0..60000 ms (0:"
            + " every request reads it). An owner change made through another gateway is seen here at most this late.")
    int catalog_cache_ms() default 1000;

    @AttributeDefinition(name = "failover.statuses", description = "With several endpoints: HTTP statuses that "
            + "count as the endpoint failing (besides no answer at all), comma-separated 5xx; empty for none.")
    String failover_statuses() default "502,503,504";

    @AttributeDefinition(name = "multipart.threshold", description = "Objects larger than this (bytes) are "
            + "written as a multipart upload, 5 MiB..5 GiB.")
    long multipart_threshold() default 64L * 1024 * 1024;

    @AttributeDefinition(name = "multipart.part.size", description = "Part size of those uploads (bytes), "
            + "5 MiB..5 GiB, at most multipart.threshold.")
    long multipart_part_size() default 16L * 1024 * 1024;

    @AttributeDefinition(name = "bucket.prefix", description = "Prepended to every bucket name on the remote "
            + "store, so several deployments can share one account; empty for none.")
    String bucket_prefix() default "";

    @AttributeDefinition(name = "system.bucket", description = "Remote bucket holding the adapter's catalog "
            + "(bucket owners); created at start if missing. Never listed to users.")
    String system_bucket() default "objrdma-system";

    @AttributeDefinition(name = "credentials", type = AttributeType.PASSWORD, description = "The gateway's users "
            + "as ACCESSKEY:SECRET[,ACCESSKEY:SECRET...]. Required: the adapter authenticates them itself.")
    String credentials();
}
