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

    @AttributeDefinition(name = "Allow public access", description = "Whether public canned ACLs (public-read, "
            + "public-read-write, authenticated-read) may be set and are honoured, and anonymous requests (no "
            + "Authorization, no presigned parameters) are served where such an ACL grants them: GET/HEAD of a public "
            + "object, listing a public bucket, PUT/DELETE/browser POST into a public-read-write bucket. false, the "
            + "default (as S3's Block Public Access), refuses those ACLs with 403 AccessDenied, ignores any stored, and "
            + "refuses every anonymous request before any lookup. The RDMA routes never serve anonymous requests.")
    boolean public_access_enabled() default false;

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

    @AttributeDefinition(name = "Declined PUT status", description = "The HTTP status of a declined cuObject PUT or "
            + "UploadPart (nothing is stored either way, x-amz-rdma-reply is 501): 501 (NotImplemented; objrdma's client, "
            + "NVIDIA's contract, MinIO-style clients) or 200 (no ETag; Cloudian-style clients, which fall back to HTTP "
            + "only on a 2xx whose reply is not 200). Default 501.",
            options = { @Option(label = "501", value = "501"), @Option(label = "200", value = "200") })
    String rdma_declined_put() default "501";

    @AttributeDefinition(name = "RC connections", description = "cuObject over RC (POST /.s3rdma-rc/connect, "
            + "unsigned): most connections open at once, each a queue pair of the verbs transport. 1 to 65536; past it "
            + "connect answers 503. Default 1024.")
    int rdma_rc_max_connections() default 1024;

    @AttributeDefinition(name = "RC connections per source", description = "Most RC connections open at once from "
            + "one source IP address, 1 to rdma.rc.max.connections; past it 503. Default 64.")
    int rdma_rc_max_connections_per_source() default 64;

    @AttributeDefinition(name = "RC idle timeout (ms)", description = "An RC connection without a request for this "
            + "long is ended (its queue pair closed), 1000 to 3600000. Default 300000.")
    long rdma_rc_idle_timeout_ms() default 300_000L;

    @AttributeDefinition(name = "RC unbound timeout (ms)", description = "An RC connection no signed object request "
            + "has used is ended after this long, 1000 to rdma.rc.idle.timeout.ms. Default 60000.")
    long rdma_rc_unbound_timeout_ms() default 60_000L;

    @AttributeDefinition(name = "RC transfer timeout (ms)", description = "How long one chunk's RDMA READ or WRITE "
            + "on an RC connection may take; past it the request fails (nothing stored) and the connection ends. "
            + "100 to 600000. Default 30000.")
    long rdma_rc_transfer_timeout_ms() default 30_000L;

    @AttributeDefinition(name = "RC transport filter", description = "LDAP filter selecting the transport RC "
            + "connections are made on. Default: a verbs RC transport.")
    String rcTransport_target() default "(objrdma.transport.endpoint.kind=verbs-rc)";

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
