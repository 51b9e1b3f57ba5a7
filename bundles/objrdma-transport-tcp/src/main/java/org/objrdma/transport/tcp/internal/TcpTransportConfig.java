package org.objrdma.transport.tcp.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Configuration of the TCP transport, PID {@code org.objrdma.transport.tcp}. Every value is checked by
 * {@link TcpSettings#from} at activation; a bad value fails activation with a message naming the property.
 */
@ObjectClassDefinition(name = "objrdma TCP transport",
        description = "The software RDMA transport: a memory agent that serves one-sided operations over TCP.")
public @interface TcpTransportConfig {

    @AttributeDefinition(name = "Bind address", description = "Address the memory agent listens on. "
            + "127.0.0.1 by default, so nothing is exposed until configured. A wildcard (0.0.0.0 or ::) "
            + "needs advertised.address.")
    String bind_address() default "127.0.0.1";

    @AttributeDefinition(name = "Port", description = "TCP port of the memory agent, 0 for an ephemeral port.",
            min = "0", max = "65535")
    int port() default 0;

    @AttributeDefinition(name = "Advertised address", description = "Address peers are told to dial "
            + "(put in every channel's endpoint). Empty: the bind address, which must then not be a wildcard.")
    String advertised_address() default "";

    @AttributeDefinition(name = "Socket send buffer", description = "SO_SNDBUF in bytes; 0 leaves it to the "
            + "operating system, whose autotuning is usually fastest. Otherwise 4096 or more.", min = "0")
    int socket_send_buffer() default 0;

    @AttributeDefinition(name = "Socket receive buffer", description = "SO_RCVBUF in bytes; 0 leaves it to the "
            + "operating system's autotuning. Otherwise 4096 or more.", min = "0")
    int socket_receive_buffer() default 0;

    @AttributeDefinition(name = "No delay", description = "TCP_NODELAY: send small frames (acknowledgements, "
            + "short requests) at once instead of waiting to coalesce them (Nagle).")
    boolean tcp_no_delay() default true;

    @AttributeDefinition(name = "Frame size", description = "Largest payload chunk per frame in bytes "
            + "(4096 .. 67108864). Larger frames mean fewer headers and system calls; a region closed while a "
            + "peer streams into it is noticed between frames.", min = "4096", max = "67108864")
    int frame_size() default 4 * 1024 * 1024;

    @AttributeDefinition(name = "Keepalive interval (ms)", description = "A connection that sent nothing for "
            + "this long sends a ping.", min = "10")
    long keepalive_interval_ms() default 1000;

    @AttributeDefinition(name = "Keepalive timeout (ms)", description = "A connection that received nothing "
            + "for this long is declared dead: its outstanding work fails with RETRY_EXC_ERR. At least twice "
            + "the interval.", min = "20")
    long keepalive_timeout_ms() default 5000;

    @AttributeDefinition(name = "Receiver-not-ready wait (ms)", description = "How long the agent waits for a "
            + "posted receive when a SEND or WRITE_WITH_IMM arrives without one, before failing it with "
            + "RNR_RETRY_EXC_ERR (verbs retries for a while the same way). Below the keepalive timeout.",
            min = "0")
    long rnr_wait_ms() default 200;

    @AttributeDefinition(name = "Handshake timeout (ms)", description = "How long an inbound connection may "
            + "take to authenticate before the agent drops it.", min = "1")
    long handshake_timeout_ms() default 5000;

    @AttributeDefinition(name = "Region close grace (ms)", description = "How long closing a region waits "
            + "for a peer operation in flight on it; after that the connections using it are cut so the "
            + "memory is never touched after close returns.", min = "1")
    long region_close_grace_ms() default 1000;

    @AttributeDefinition(name = "Shutdown timeout (ms)", description = "How long closing a channel or the "
            + "transport waits for each of its threads to end.", min = "1")
    long shutdown_timeout_ms() default 5000;

    @AttributeDefinition(name = "Max channels", description = "Most channels open at once; each connected "
            + "channel uses two threads and one socket.", min = "1")
    int max_channels() default 1024;

    @AttributeDefinition(name = "Max regions", description = "Most memory regions registered at once.", min = "1")
    int max_regions() default 65536;

    @AttributeDefinition(name = "Max queue depth", description = "Largest send or receive queue depth a "
            + "channel may ask for; also the most READ requests of a peer one connection queues for reply.",
            min = "1")
    int max_queue_depth() default 4096;

    @AttributeDefinition(name = "Access key length", description = "Bytes of each channel's random access "
            + "key (16 .. 64).", min = "16", max = "64")
    int key_length() default 32;

    @AttributeDefinition(name = "Max grants per channel", description = "Most memory grants one channel may "
            + "hold at once; Channel.grant beyond that fails with RESOURCE_EXHAUSTED.", min = "1")
    int max_grants_per_channel() default 4096;

    @AttributeDefinition(name = "Writer queue frames", description = "Most frames (acknowledgements, READ "
            + "responses) a connection queues for its peer. When full, the connection stops reading from the "
            + "peer (back-pressure); if the peer still reads nothing for keepalive.timeout.ms, the connection "
            + "is cut and the peer named in the log.", min = "16")
    int writer_queue_frames() default 8192;

    @AttributeDefinition(name = "Writer queue bytes", description = "Most wire bytes (headers and READ "
            + "payloads) a connection owes its peer before it stops reading from it; same rule as the frames. "
            + "One request is always admitted, however large.", min = "4096")
    long writer_queue_bytes() default 64L * 1024 * 1024;

    @AttributeDefinition(name = "Max pending handshakes", description = "Most inbound sockets that have not "
            + "authenticated yet; a socket accepted beyond that is closed at once (a TCP transport dialing in backs off "
            + "and tries again until its connect timeout).", min = "1")
    int max_pending_handshakes() default 256;

    @AttributeDefinition(name = "Max pending handshakes per address", description = "The same from one "
            + "source address, so a flood from one host never takes every slot (1 .. max.pending.handshakes).",
            min = "1")
    int max_pending_handshakes_per_address() default 32;

    @AttributeDefinition(name = "Max connections", description = "Most inbound sockets held at once, "
            + "authenticated or not (at least max.pending.handshakes). Outbound dials are not counted, so the "
            + "transport can always dial its peers.", min = "1")
    int max_connections() default 1024;

    @AttributeDefinition(name = "Service ranking", description = "service.ranking of the Transport service; "
            + "the verbs transport uses 100, so TCP is chosen only where no NIC is. A whole number in int range; "
            + "the string a Karaf .cfg file gives (service.ranking = 5) is parsed and published as an Integer.")
    int service_ranking() default 0;
}
