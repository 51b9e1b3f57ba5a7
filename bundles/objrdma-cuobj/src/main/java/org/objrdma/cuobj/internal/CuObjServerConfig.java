package org.objrdma.cuobj.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Configuration of PID {@code org.objrdma.cuobj}: the server address, the cuObject tunables with their C
 * defaults, and objrdma's agent key and bounds. Validated at activation ({@link ServerSettings#from}); a bad
 * value keeps the component from activating and the log names the property. The component needs a
 * configuration to start (it may be empty: without {@code agent.key} it runs in per-principal mode).
 */
@ObjectClassDefinition(name = "objrdma cuObject server",
        description = "cuObjServer-compatible facade: address, cuObject tunables, agent key and bounds.")
public @interface CuObjServerConfig {

    @AttributeDefinition(name = "IP address", description = "Literal IPv4 or IPv6 address (no brackets) the server"
            + " reports as its own. On the TCP path outbound connections use the TCP transport's address. Default 127.0.0.1.")
    String ip() default "127.0.0.1";

    @AttributeDefinition(name = "Port", min = "0", max = "65535", description = "Port the server reports. Default 0.")
    int port() default 0;

    @AttributeDefinition(name = "Protocol", description = "cuObjProto_t; 1001 (CUOBJ_PROTO_RDMA_DC_V1) is the one"
            + " protocol. Default 1001.")
    int proto() default 1001;

    @AttributeDefinition(name = "Channels (num_dcis)", min = "1", max = "65535",
            description = "Channel ids 0..num_dcis-1. Default 128.")
    int num_dcis() default 128;

    @AttributeDefinition(name = "CQ depth", min = "1", max = "65536", description = "Requests outstanding on one"
            + " connection to a client agent (its send queue depth); at most the transport's max.queue.depth."
            + " Default 640.")
    long cq_depth() default 640;

    @AttributeDefinition(name = "DC key", description = "cuObject DC key, decimal or 0x-hex; used only with"
            + " agent.key.from.dc.key. Default 0xffeeddcc.")
    String dc_key() default "0xffeeddcc";

    @AttributeDefinition(name = "ibv_poll_max_comp_event", min = "1", description = "Reported only. Default 16.")
    int ibv_poll_max_comp_event() default 16;

    @AttributeDefinition(name = "Service level", min = "0", max = "15", description = "Reported only. Default 0.")
    int service_level() default 0;

    @AttributeDefinition(name = "Timeout", min = "0", max = "31", description = "Verbs ACK timeout exponent; reported"
            + " only. Default 16.")
    int timeout() default 16;

    @AttributeDefinition(name = "Hop limit", min = "0", max = "255", description = "Reported only. Default 4.")
    int hop_limit() default 4;

    @AttributeDefinition(name = "P_Key index", min = "0", max = "65535", description = "Reported only. Default 0.")
    int pkey_index() default 0;

    @AttributeDefinition(name = "max_wr", min = "1", description = "Reported only. Default 128.")
    int max_wr() default 128;

    @AttributeDefinition(name = "max_sge", min = "1", max = "1024", description = "Most entries a transferred buffer"
            + " may have (-EIO beyond). Default 10.")
    int max_sge() default 10;

    @AttributeDefinition(name = "Delay interval (ns)", min = "0", max = "4294967295", description = "Polling delay"
            + " of synchronous calls; accepted, completions wake the caller. Default 5000.")
    long delay_interval() default 5000;

    @AttributeDefinition(name = "Delay mode", description = "CUOBJ_DELAY_NONE, _BATCH, _ENTRY or _ADAPTIVE (or"
            + " NONE, BATCH, ENTRY, ADAPTIVE); accepted. Default CUOBJ_DELAY_BATCH.")
    String delay_mode() default "CUOBJ_DELAY_BATCH";

    @AttributeDefinition(name = "QP reset on failure", description = "Reported only: a failed connection is always"
            + " dropped and redialed. Default true.")
    boolean qp_reset_on_failure() default true;

    @AttributeDefinition(name = "Retry count", min = "0", max = "7", description = "Reported only. Default 7.")
    int retry_cnt() default 7;

    @AttributeDefinition(name = "Traffic class", min = "0", max = "255", description = "Reported only. Default 96.")
    int traffic_class() default 96;

    @AttributeDefinition(name = "max_rd_atomic", min = "0", max = "255", description = "0 = auto; reported only."
            + " Default 0.")
    int max_rd_atomic() default 0;

    @AttributeDefinition(name = "Agent key", type = AttributeType.PASSWORD, required = false,
            description = "Shared key the cuObjServer-compatible transfer calls present to client memory agents (the DC"
                    + " key's stand-in): 16..64 bytes as hex digits, 'hex:...' or 'base64:...'. Empty (the default):"
                    + " per-principal mode, those calls answer -EINVAL; the S3 gateway never needs it (it dials with"
                    + " each principal's own key).")
    String agent_key() default "";

    @AttributeDefinition(name = "Agent key from DC key", description = "Derive the agent key from dc.key (cuObject"
            + " compatibility; as guessable as the DC key). Only when agent.key is empty. Default false.")
    boolean agent_key_from_dc_key() default false;

    @AttributeDefinition(name = "Transfer timeout (ms)", min = "1", max = "86400000", description = "Longest a"
            + " transfer may take (RESP_TIMEOUT_ERR beyond). Default 60000.")
    long transfer_timeout_ms() default 60_000;

    @AttributeDefinition(name = "Connection cache size", min = "1", max = "65536", description = "Connections to"
            + " client agents kept open; least recently used dropped beyond. Default 256.")
    int connection_cache_size() default 256;

    @AttributeDefinition(name = "Telemetry flags", min = "0", max = "7", description = "CUOBJ_LOG_PATH_* bits: 1 INFO,"
            + " 2 DEBUG, 4 ERROR, to SLF4J logger org.objrdma.cuobj.telemetry. Default 4.")
    int telemetry_flags() default 4;

    @AttributeDefinition(name = "Telemetry operation flags", min = "0", max = "3", description = "CUOBJ_LOG_OP_*"
            + " bits: 1 GET, 2 PUT (a line per completed operation). Default 0.")
    int telemetry_op_flags() default 0;

    @AttributeDefinition(name = "Allowed addresses", description = "Comma- or space-separated literal CIDR blocks"
            + " (127.0.0.0/8, ::1, 10.0.0.0/8) a descriptor may name although the address policy refuses them:"
            + " unspecified and 0.0.0.0/8, loopback, link-local (169.254.0.0/16, fe80::/10), multicast, broadcast and"
            + " reserved, this host's own addresses (IPv4 carried in IPv6 judged as IPv4), and the deny list. Default"
            + " empty: none of those is dialed (-EACCES).")
    String allow_addresses() default "";

    @AttributeDefinition(name = "Denied addresses", required = false, description = "Comma- or space-separated"
            + " literal CIDR blocks a descriptor may not name, and the word private for 10.0.0.0/8, 172.16.0.0/12,"
            + " 192.168.0.0/16, 100.64.0.0/10 and fc00::/7 (-EACCES). The allow list is the exception. Default empty.")
    String deny_addresses() default "";

    @AttributeDefinition(name = "Failed dial delay (ms)", min = "100", max = "60000", description = "A dial of a"
            + " client agent is cut off after this long, and a failed one answers (-EIO, RETRY_EXC_ERR, one text) only"
            + " once this long has passed since it began: closed, filtered, silent or refusing ports look the same."
            + " 100..60000, default 2500.")
    long dial_failure_delay_ms() default 2_500;

    @AttributeDefinition(name = "Transport target", description = "DS target filter of the Transport reference."
            + " Default (objrdma.transport.flows=agent-one-sided): the best-ranked transport that serves the cuObject"
            + " flow (server-initiated one-sided operations to a client memory agent).")
    String transport_target() default CuObjServerComponent.TRANSPORT_TARGET;
}
