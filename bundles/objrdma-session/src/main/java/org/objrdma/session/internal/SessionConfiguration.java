package org.objrdma.session.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Configuration of PID {@code org.objrdma.session}: every field of {@code rc_device_opts}, the reaper
 * period, the lease deadline and the shutdown bound. Every value is validated at activation
 * ({@link SessionSettings.Builder#build()}); a bad one keeps the component from activating, and the log
 * names the property.
 */
@ObjectClassDefinition(name = "objrdma session manager",
        description = "hipobj-rc-v2 RC session core: limits, deadlines, slots and transport selection.")
public @interface SessionConfiguration {

    @AttributeDefinition(name = "Max sessions", min = "1", max = "16777216",
            description = "Live sessions in all (each owns one channel and one staging buffer), at most 2^24."
                    + " Default 1024.")
    long max_sessions() default 1024;

    @AttributeDefinition(name = "Max sessions per principal", min = "1",
            description = "Live sessions per principal; at most max.sessions. Default 256.")
    long max_user_sessions() default 256;

    @AttributeDefinition(name = "Max staging bytes (deprecated, ignored)",
            description = "Deprecated and ignored: staging bytes are limited by max.total.bytes of"
                    + " org.objrdma.staging. Accepted so old configurations still activate; a value other than the"
                    + " default 4294967296 logs one WARN at activation.")
    long max_staging_bytes() default 4L << 30;

    @AttributeDefinition(name = "Max staging bytes per principal (deprecated, ignored)",
            description = "Deprecated and ignored: staging bytes per principal are limited by"
                    + " max.bytes.per.principal of org.objrdma.staging. Accepted so old configurations still activate;"
                    + " a value other than the default 1073741824 logs one WARN at activation.")
    long max_user_staging_bytes() default 1L << 30;

    @AttributeDefinition(name = "Max queue pairs", min = "1", max = "16777216",
            description = "Channels (queue pairs) in all; every session owns exactly one; at most 2^24 (24-bit"
                    + " queue pair numbers). Default 1024.")
    long max_qps() default 1024;

    @AttributeDefinition(name = "Max queue pairs per principal", min = "1",
            description = "Channels per principal; at most max.qps. Default 256.")
    long max_user_qps() default 256;

    @AttributeDefinition(name = "PREPARE timeout (ms)", min = "1", max = "86400000",
            description = "From PREPARE (and from a Busy READY) to READY; a session never claimed expires. Default 30000.")
    long prep_timeout_ms() default 30_000;

    @AttributeDefinition(name = "Data phase timeout (ms)", min = "1", max = "86400000",
            description = "Longest READY data phase, connect included. Default 30000.")
    long exec_timeout_ms() default 30_000;

    @AttributeDefinition(name = "READY slots", min = "1", max = "65536",
            description = "Concurrent READY data phases (and gateway-held READY slots). Default 64.")
    int max_ready_slots() default 64;

    @AttributeDefinition(name = "Stage slots", min = "1", max = "65536",
            description = "Gateway-held slots around GET staging reads. Default 32.")
    int max_stage_slots() default 32;

    @AttributeDefinition(name = "Reaper period (ms)", min = "1", max = "100",
            description = "How often expired sessions and overdue leases are looked for; at most 100. Default 50.")
    long reaper_period_ms() default 50;

    @AttributeDefinition(name = "Lease timeout (ms)", min = "1", max = "86400000",
            description = "Longest a staging lease, put view or READY completion reference may be held before it is"
                    + " revoked and the session ends. Default 60000.")
    long lease_timeout_ms() default 60_000;

    @AttributeDefinition(name = "Shutdown timeout (ms)", min = "1", max = "86400000",
            description = "How long deactivation waits for held sessions to drain before tearing them down by force"
                    + " and reporting them. Default 10000.")
    long shutdown_timeout_ms() default 10_000;

    @AttributeDefinition(name = "Verbs device name", required = false,
            description = "When set, sessions are created only on the transport named verbs:<dev.name>; pair it with"
                    + " transport.target = (objrdma.transport.name=verbs:<dev.name>) so that transport is the one bound."
                    + " Empty (default): any transport.")
    String dev_name() default "";

    @AttributeDefinition(name = "Control plane only",
            description = "Test mode: admit sessions whose PREPARE names no client endpoint. No data moves for them,"
                    + " READY reports OK with 0 bytes, and get_put_data refuses (STATE), so such a PUT can never be"
                    + " committed. Off (default): a PREPARE without a client endpoint is refused with ARG.")
    boolean control_plane_only() default false;

    @AttributeDefinition(name = "Allowed client addresses", required = false,
            description = "Comma- or space-separated literal CIDR blocks (127.0.0.0/8, ::1) a PREPARE client endpoint may"
                    + " name although the address policy refuses them: unspecified and 0.0.0.0/8, loopback, link-local"
                    + " (169.254.0.0/16, fe80::/10), multicast, broadcast and reserved, this host's own addresses"
                    + " (IPv4 carried in IPv6 judged as IPv4), and the deny list. Empty (default): none. A host name, a"
                    + " bad prefix or host bits below the prefix fail activation naming allow.addresses.")
    String allow_addresses() default "";

    @AttributeDefinition(name = "Denied client addresses", required = false,
            description = "Comma- or space-separated literal CIDR blocks a PREPARE client endpoint may not name, and the"
                    + " word private for 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 and fc00::/7."
                    + " The allow list is the exception. Empty (default): none. A bad entry fails activation naming"
                    + " deny.addresses.")
    String deny_addresses() default "";

    @AttributeDefinition(name = "Failed dial delay (ms)", min = "100", max = "60000",
            description = "READY's dial of the client endpoint is cut off after this long, and a failed dial is"
                    + " answered (WIRE) only once this long has passed since it began, whatever the port did: closed,"
                    + " filtered or open without an objrdma agent look the same. 100..60000, default 2500.")
    long dial_failure_delay_ms() default 2_500;

    @AttributeDefinition(name = "Transport filter", required = false,
            description = "OSGi filter choosing the Transport service, e.g. (objrdma.transport.name=tcp)."
                    + " Default: any; the highest service.ranking wins.")
    String transport_target() default "(objrdma.transport.name=*)";

    @AttributeDefinition(name = "Node id", required = false,
            description = "This gateway's name among the gateways in front of one store: 1 to 64 of A-Z a-z 0-9 _ . -."
                    + " When set, every session id starts with the node's 8-hex tag (the rest stays random), so another"
                    + " gateway can send its READY or CANCEL here. Empty (default): no tag.")
    String node_id() default "";

    @AttributeDefinition(name = "Nodes", required = false,
            description = "Every gateway of the fleet as id=http(s)://host:port (its advertised S3 endpoint), separated"
                    + " by commas; identical on every node and listing this one. A READY or CANCEL of another listed node's"
                    + " session is answered 307 to that node. Empty (default): no fleet.")
    String nodes() default "";
}
