package org.objrdma.verbs.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the {@code org.objrdma.verbs} component (PID {@code org.objrdma.verbs}). */
@ObjectClassDefinition(name = "objrdma verbs devices",
        description = "Which libibverbs to load, which RDMA devices and port to publish, and how the verbs"
                + " transport polls for completions.")
public @interface VerbsConfig {

    @AttributeDefinition(name = "Library path", description = "libibverbs to load: an absolute path to a"
            + " libibverbs.so.1 (a NIC's, or the software test device), or a bare file name for the system loader."
            + " Empty (default): the system property objrdma.verbs.library if set, else libibverbs.so.1.")
    String library_path() default "";

    @AttributeDefinition(name = "Device name", description = "Publish only this device (e.g. mlx5_0)."
            + " Empty (default): every device libibverbs lists.")
    String device_name() default "";

    @AttributeDefinition(name = "Port", description = "Port number, 1..255 (default 1).")
    int port() default 1;

    @AttributeDefinition(name = "GID index", description = "Index of the source GID, 0..255; -1 (default) picks"
            + " the first non-zero GID that matches gid.prefix.")
    int gid_index() default -1;

    @AttributeDefinition(name = "GID prefix hint", description = "With gid.index -1: use the first GID whose hex"
            + " form starts with these hex digits (colons ignored), e.g. 0000:0000:0000:0000:0000:ffff for RoCE v2"
            + " over IPv4, fe80 for link-local. Empty (default): the first non-zero GID.")
    String gid_prefix() default "";

    @AttributeDefinition(name = "Poller idle strategy", description = "What the completion poller does while"
            + " submitted work is outstanding and nothing completed: spin (lowest latency, one busy core) or"
            + " backoff (default: spin, yield, then park up to poller.backoff.max.park.us).")
    String poller_idle() default "backoff";

    @AttributeDefinition(name = "Poller longest park (µs)", description = "Longest park of the backoff strategy,"
            + " 1..1000000 µs (default 1000); also bounds how late a batch deadline is noticed.")
    long poller_backoff_max_park_us() default 1000;
}
