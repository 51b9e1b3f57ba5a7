package org.objrdma.s3.internal.servlet;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * Configuration of the S3 gateway, PID {@code org.objrdma.s3}. Checked at activation
 * ({@link org.objrdma.s3.S3Settings}): a bad value fails the component with a message naming the property.
 * The HTTP port, TLS and threads are Pax Web's ({@code org.ops4j.pax.web}), not the gateway's.
 */
@ObjectClassDefinition(id = "org.objrdma.s3", name = "objrdma S3 gateway",
        description = "S3 over HTTP (SigV4 and SigV2, aws-chunked) in front of the ObjectStore service.")
public @interface S3GatewayConfig {

    @AttributeDefinition(name = "Region", description = "The region signatures must be scoped to (the credential's "
            + "region) and GetBucketLocation reports. Default us-east-1.")
    String region() default "us-east-1";

    @AttributeDefinition(name = "Virtual-host base domain", description = "Requests whose Host is <bucket>.<domain> "
            + "are virtual-host style; empty serves path style only. Default empty.")
    String virtual_host_domain() default "";

    @AttributeDefinition(name = "Clock skew (s)", description = "How far a header-signed request's x-amz-date may be "
            + "from the server's clock, 1 to 86400. Default 900 (15 minutes, as S3).")
    long max_clock_skew() default 900L;

    @AttributeDefinition(name = "Largest XML body (bytes)", description = "Largest CompleteMultipartUpload or "
            + "DeleteObjects body, at least 1024; past it MaxMessageLengthExceeded. Default 3145728 (3 MiB: 10000 "
            + "parts of up to about 300 bytes each).")
    int max_xml_body_bytes() default 3 << 20;

    @AttributeDefinition(name = "Largest object or part (bytes)", description = "Largest PutObject or UploadPart "
            + "body. Default 5368709120 (5 GiB, as S3).")
    long max_put_bytes() default 5L << 30;

    @AttributeDefinition(name = "Accept SigV2", description = "Whether requests signed with AWS Signature Version 2 "
            + "(Authorization: AWS AKID:signature, or presigned AWSAccessKeyId/Signature/Expires) are served, as "
            + "s3cmd and older SDKs send them and Debian's boto3 presigns. false is the stricter choice: only SigV4, "
            + "V2 answered 400 InvalidRequest. The RDMA routes take SigV4 only either way. Default true.")
    boolean sigv2_enabled() default true;

    @AttributeDefinition(name = "RDMA threshold (bytes)", description = "Smallest GET range or PUT moved over "
            + "cuObject; smaller ones are declined (x-amz-rdma-reply: 501; a GET answers with the body). At least 1. "
            + "Default 1 (every non-empty object).")
    long rdma_min_bytes() default 1L;

    @AttributeDefinition(name = "RDMA chunk (bytes)", description = "Staging buffer size of a cuObject transfer; "
            + "larger objects move in chunks through two staging buffers, pipelined. 4096 to 1073741824. "
            + "Default 8388608.")
    long rdma_chunk_bytes() default 8L << 20;

    @AttributeDefinition(name = "Foreign sessions", description = "What a READY or CANCEL of another fleet node's "
            + "session gets (org.objrdma.session nodes): redirect (307 to the owner's endpoint; the client signs "
            + "again) or forward (sent to the owner as signed, its answer relayed). Default redirect.",
            options = { @Option(label = "redirect", value = "redirect"), @Option(label = "forward", value = "forward") })
    String rdma_foreign_sessions() default "redirect";

    @AttributeDefinition(name = "Forward connect timeout (ms)", description = "Forward mode: how long to wait "
            + "for the connection to the owning node, 1 to 60000; past it 502. Default 2000.")
    long rdma_forward_connect_timeout_ms() default 2000L;

    @AttributeDefinition(name = "Forward read timeout (ms)", description = "Forward mode: how long to wait for "
            + "the owning node's answer, 1 to 3600000; past it 504. Must exceed the owner's exec.timeout.ms. "
            + "Default 60000.")
    long rdma_forward_read_timeout_ms() default 60000L;

    @AttributeDefinition(name = "hipobj-rc-v2 status style", description = "The HTTP statuses of the "
            + "/.hipobj-rc/* routes where two conventions differ: objrdma (versitygw's routes: unknown session 404, "
            + "cookie mismatch 404, limit 429, transfer timeout 504, transfer failure 502) or hipobj (hipObject's "
            + "reference server: 409, 403, 503, 408, 500). Every other answer, and what each case changes, is the "
            + "same in both. Default objrdma.",
            options = { @Option(label = "objrdma", value = "objrdma"), @Option(label = "hipobj", value = "hipobj") })
    String rdma_rc_status_style() default "objrdma";

    @AttributeDefinition(name = "Store filter", description = "LDAP filter selecting the ObjectStore service. "
            + "Default: any.")
    String store_target() default "(objectClass=org.objrdma.api.store.ObjectStore)";
}
