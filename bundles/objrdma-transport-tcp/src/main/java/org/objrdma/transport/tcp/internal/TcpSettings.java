package org.objrdma.transport.tcp.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

/**
 * The validated configuration of one TCP transport: an immutable value. {@link #from} checks every
 * property and throws {@link IllegalArgumentException} naming the first bad one; nothing partial is built.
 *
 * @param bindAddress        where the memory agent listens
 * @param port               agent port, 0 = ephemeral
 * @param advertisedAddress  the address peers dial (never a wildcard)
 * @param sendBuffer         SO_SNDBUF, 0 = operating system default
 * @param receiveBuffer      SO_RCVBUF, 0 = operating system default
 * @param noDelay            TCP_NODELAY
 * @param frameSize          largest payload chunk of one frame
 * @param keepaliveInterval  idle time before a ping
 * @param keepaliveTimeout   silence after which the peer counts as gone
 * @param rnrWait            how long a SEND / WRITE_WITH_IMM waits for a posted receive
 * @param handshakeTimeout   how long an inbound connection may take to authenticate
 * @param regionCloseGrace   how long region close waits for peer operations in flight
 * @param shutdownTimeout    how long a close waits for each thread
 * @param maxChannels        most open channels
 * @param maxRegions         most registered regions
 * @param maxQueueDepth      largest queue depth, and the per-connection backlog of peer READs
 * @param keyLength          bytes of a channel access key
 * @param serviceRanking     service.ranking of the service
 * @param limits             bounds on what a peer can make the transport hold
 */
public record TcpSettings(InetAddress bindAddress, int port, InetAddress advertisedAddress,
                          int sendBuffer, int receiveBuffer, boolean noDelay, int frameSize,
                          Duration keepaliveInterval, Duration keepaliveTimeout, Duration rnrWait,
                          Duration handshakeTimeout, Duration regionCloseGrace, Duration shutdownTimeout,
                          int maxChannels, int maxRegions, int maxQueueDepth, int keyLength, int serviceRanking,
                          PeerLimits limits) {

    /** Smallest frame and smallest explicit socket buffer. */
    static final int MIN_FRAME = 4096;
    /** Largest frame: a chunk is read in one go into registered memory. */
    static final int MAX_FRAME = 64 * 1024 * 1024;

    public TcpSettings {
        require(port >= 0 && port <= 65535, "port", port, "must be 0..65535");
        require(advertisedAddress != null && !advertisedAddress.isAnyLocalAddress(), "advertised.address",
                advertisedAddress, "must be a concrete address peers can dial");
        require(sendBuffer == 0 || sendBuffer >= MIN_FRAME, "socket.send.buffer", sendBuffer,
                "must be 0 (operating system) or at least 4096");
        require(receiveBuffer == 0 || receiveBuffer >= MIN_FRAME, "socket.receive.buffer", receiveBuffer,
                "must be 0 (operating system) or at least 4096");
        require(frameSize >= MIN_FRAME && frameSize <= MAX_FRAME, "frame.size", frameSize,
                "must be 4096..67108864");
        require(keepaliveInterval.toMillis() >= 10, "keepalive.interval.ms", keepaliveInterval.toMillis(),
                "must be at least 10");
        require(keepaliveTimeout.compareTo(keepaliveInterval.multipliedBy(2)) >= 0, "keepalive.timeout.ms",
                keepaliveTimeout.toMillis(), "must be at least twice keepalive.interval.ms ("
                        + keepaliveInterval.toMillis() + ")");
        require(!rnrWait.isNegative() && rnrWait.compareTo(keepaliveTimeout) < 0, "rnr.wait.ms",
                rnrWait.toMillis(), "must be 0 or more and below keepalive.timeout.ms ("
                        + keepaliveTimeout.toMillis() + ")");
        require(handshakeTimeout.toMillis() >= 1, "handshake.timeout.ms", handshakeTimeout.toMillis(),
                "must be at least 1");
        require(regionCloseGrace.toMillis() >= 1, "region.close.grace.ms", regionCloseGrace.toMillis(),
                "must be at least 1");
        require(shutdownTimeout.toMillis() >= 1, "shutdown.timeout.ms", shutdownTimeout.toMillis(),
                "must be at least 1");
        require(maxChannels >= 1, "max.channels", maxChannels, "must be at least 1");
        require(maxRegions >= 1, "max.regions", maxRegions, "must be at least 1");
        require(maxQueueDepth >= 1, "max.queue.depth", maxQueueDepth, "must be at least 1");
        require(keyLength >= 16 && keyLength <= 64, "key.length", keyLength, "must be 16..64");
        require(limits != null, "limits", limits, "must be given");
    }

    /** Settings with {@link PeerLimits#DEFAULTS}: the shape of 1.0, kept for callers that name every value. */
    public TcpSettings(InetAddress bindAddress, int port, InetAddress advertisedAddress, int sendBuffer,
                       int receiveBuffer, boolean noDelay, int frameSize, Duration keepaliveInterval,
                       Duration keepaliveTimeout, Duration rnrWait, Duration handshakeTimeout,
                       Duration regionCloseGrace, Duration shutdownTimeout, int maxChannels, int maxRegions,
                       int maxQueueDepth, int keyLength, int serviceRanking) {
        this(bindAddress, port, advertisedAddress, sendBuffer, receiveBuffer, noDelay, frameSize, keepaliveInterval,
                keepaliveTimeout, rnrWait, handshakeTimeout, regionCloseGrace, shutdownTimeout, maxChannels,
                maxRegions, maxQueueDepth, keyLength, serviceRanking, PeerLimits.DEFAULTS);
    }

    /** The same settings with other peer limits. */
    public TcpSettings withLimits(PeerLimits other) {
        return new TcpSettings(bindAddress, port, advertisedAddress, sendBuffer, receiveBuffer, noDelay, frameSize,
                keepaliveInterval, keepaliveTimeout, rnrWait, handshakeTimeout, regionCloseGrace, shutdownTimeout,
                maxChannels, maxRegions, maxQueueDepth, keyLength, serviceRanking, other);
    }

    /** Defaults, listening on an ephemeral loopback port: what tests and the benchmark start from. */
    public static TcpSettings loopbackDefaults() {
        return from(defaultConfig(), null);
    }

    /** The same settings with another bind (and advertised) address. */
    public TcpSettings withAddress(InetAddress address) {
        return new TcpSettings(address, port, address, sendBuffer, receiveBuffer, noDelay, frameSize,
                keepaliveInterval, keepaliveTimeout, rnrWait, handshakeTimeout, regionCloseGrace, shutdownTimeout,
                maxChannels, maxRegions, maxQueueDepth, keyLength, serviceRanking, limits);
    }

    /** The same settings with other keepalive and receiver-not-ready times. */
    public TcpSettings withTimes(Duration interval, Duration timeout, Duration rnr) {
        return new TcpSettings(bindAddress, port, advertisedAddress, sendBuffer, receiveBuffer, noDelay, frameSize,
                interval, timeout, rnr, handshakeTimeout, regionCloseGrace, shutdownTimeout,
                maxChannels, maxRegions, maxQueueDepth, keyLength, serviceRanking, limits);
    }

    /** The same settings with another service ranking. */
    public TcpSettings withServiceRanking(int ranking) {
        return new TcpSettings(bindAddress, port, advertisedAddress, sendBuffer, receiveBuffer, noDelay, frameSize,
                keepaliveInterval, keepaliveTimeout, rnrWait, handshakeTimeout, regionCloseGrace, shutdownTimeout,
                maxChannels, maxRegions, maxQueueDepth, keyLength, ranking, limits);
    }

    /** The same settings with another frame size. */
    public TcpSettings withFrameSize(int bytes) {
        return new TcpSettings(bindAddress, port, advertisedAddress, sendBuffer, receiveBuffer, noDelay, bytes,
                keepaliveInterval, keepaliveTimeout, rnrWait, handshakeTimeout, regionCloseGrace, shutdownTimeout,
                maxChannels, maxRegions, maxQueueDepth, keyLength, serviceRanking, limits);
    }

    /**
     * Validates {@code config}.
     *
     * @param rawRanking the raw {@code service.ranking} property as Config Admin delivered it, or null: an
     *                   Integer (a typed {@code .config} file or a caller), another whole number in int range,
     *                   or a String holding one (a Karaf {@code .cfg} file gives strings)
     * @throws IllegalArgumentException naming the first bad property
     */
    public static TcpSettings from(TcpTransportConfig config, Object rawRanking) {
        int ranking = rawRanking == null ? config.service_ranking() : ranking(rawRanking);
        InetAddress bind = parseAddress("bind.address", config.bind_address());
        InetAddress advertised;
        String adv = config.advertised_address() == null ? "" : config.advertised_address().trim();
        if (adv.isEmpty()) {
            if (bind.isAnyLocalAddress()) {
                throw new IllegalArgumentException("bind.address " + config.bind_address()
                        + " is a wildcard: set advertised.address to the address peers should dial");
            }
            advertised = bind;
        } else {
            advertised = parseAddress("advertised.address", adv);
        }
        return new TcpSettings(bind, config.port(), advertised, config.socket_send_buffer(),
                config.socket_receive_buffer(), config.tcp_no_delay(), config.frame_size(),
                millis("keepalive.interval.ms", config.keepalive_interval_ms()),
                millis("keepalive.timeout.ms", config.keepalive_timeout_ms()),
                millis("rnr.wait.ms", config.rnr_wait_ms()),
                millis("handshake.timeout.ms", config.handshake_timeout_ms()),
                millis("region.close.grace.ms", config.region_close_grace_ms()),
                millis("shutdown.timeout.ms", config.shutdown_timeout_ms()),
                config.max_channels(), config.max_regions(), config.max_queue_depth(), config.key_length(),
                ranking,
                new PeerLimits(config.max_grants_per_channel(), config.writer_queue_frames(),
                        config.writer_queue_bytes(), config.max_pending_handshakes(),
                        config.max_pending_handshakes_per_address(), config.max_connections()));
    }

    /** The socket address peers dial for an agent listening on {@code port}. */
    InetSocketAddress advertisedSocketAddress(int boundPort) {
        return new InetSocketAddress(advertisedAddress, boundPort);
    }

    /** {@code service.ranking} as an int, from whatever type the configuration carried. */
    static int ranking(Object raw) {
        if (raw instanceof Integer i) {
            return i;
        }
        if (raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
            long value = ((Number) raw).longValue();
            require(value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE, "service.ranking", raw,
                    "must fit an int");
            return (int) value;
        }
        if (raw instanceof String text) {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("service.ranking must be a whole number (an int), was '"
                        + text + "'", e);
            }
        }
        throw new IllegalArgumentException("service.ranking must be a whole number (an int), was "
                + raw.getClass().getSimpleName() + " '" + raw + "'");
    }

    private static Duration millis(String name, long value) {
        require(value >= 0, name, value, "must not be negative");
        return Duration.ofMillis(value);
    }

    /** Only literal addresses: a host name would make activation depend on name resolution. */
    private static InetAddress parseAddress(String name, String text) {
        String value = text == null ? "" : text.trim();
        if (value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        boolean literal = value.indexOf(':') >= 0 || value.chars().allMatch(c -> c == '.' || Character.isDigit(c));
        if (!literal) {
            throw new IllegalArgumentException(name + " '" + value + "' must be a literal IPv4 or IPv6 address");
        }
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(name + " '" + value + "' is not an IP address: " + e.getMessage(), e);
        }
    }

    private static void require(boolean ok, String name, Object value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(name + " " + rule + ", was " + value);
        }
    }

    /**
     * Validated settings from configuration-style properties (names as in the metatype, values typed or as
     * strings), for code that runs outside OSGi.
     *
     * @throws IllegalArgumentException naming the first unknown or invalid property
     */
    public static TcpSettings fromProperties(Map<String, ?> properties) {
        Map<String, Object> typed = new java.util.HashMap<>();
        for (Map.Entry<String, ?> e : properties.entrySet()) {
            String name = e.getKey();
            if (name.equals("service.ranking")) {
                continue; // only meaningful for the OSGi service
            }
            java.lang.reflect.Method element;
            try {
                element = TcpTransportConfig.class.getMethod(name.replace('.', '_'));
            } catch (NoSuchMethodException unknown) {
                throw new IllegalArgumentException("unknown TCP transport property " + name);
            }
            typed.put(name, convert(name, e.getValue(), element.getReturnType()));
        }
        return from(configWith(typed), null);
    }

    private static Object convert(String name, Object value, Class<?> type) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (!(value instanceof String text)) {
            return value;
        }
        try {
            if (type == int.class) {
                return Integer.parseInt(text.trim());
            }
            if (type == long.class) {
                return Long.parseLong(text.trim());
            }
            if (type == boolean.class) {
                String t = text.trim();
                if (!t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException(name + " must be true or false, was " + text);
                }
                return Boolean.parseBoolean(t);
            }
            return text;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, was " + text, e);
        }
    }

    /** The annotation's own defaults as an instance, for code that runs outside OSGi. */
    static TcpTransportConfig defaultConfig() {
        return configWith(Map.of());
    }

    /**
     * A config whose elements return {@code overrides} (keyed by property name, e.g. {@code frame.size})
     * and the annotation defaults otherwise.
     */
    static TcpTransportConfig configWith(Map<String, Object> overrides) {
        InvocationHandler h = (proxy, method, args) -> {
            String property = method.getName().replace('_', '.');
            if (overrides.containsKey(property)) {
                return overrides.get(property);
            }
            return switch (method.getName()) {
                case "annotationType" -> TcpTransportConfig.class;
                case "toString" -> "TcpTransportConfig" + overrides;
                case "hashCode" -> overrides.hashCode();
                case "equals" -> proxy == args[0];
                default -> method.getDefaultValue();
            };
        };
        return (TcpTransportConfig) Proxy.newProxyInstance(TcpTransportConfig.class.getClassLoader(),
                new Class<?>[] {TcpTransportConfig.class}, h);
    }
}
