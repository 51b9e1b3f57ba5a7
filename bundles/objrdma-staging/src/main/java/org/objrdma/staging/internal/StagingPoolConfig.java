package org.objrdma.staging.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Configuration of the staging pool, PID {@code org.objrdma.staging}. Every value is checked when the
 * component activates ({@link StagingSettings#from}); a zero, negative or inconsistent value fails the
 * activation with a message naming the property, and the pool is then not offered at all. A change while the
 * pool runs is checked the same way and refused (the pool keeps its settings) or applied, live or by a rebuild
 * of the size classes ({@link StagingPoolComponent}).
 *
 * <p>Durations are milliseconds, sizes bytes. Attribute names map to property names with {@code _} read
 * as {@code .}: {@code max_total_bytes} is {@code max.total.bytes}.
 */
@ObjectClassDefinition(id = "org.objrdma.staging", name = "objrdma staging pool",
        description = "Registered, page-aligned off-heap buffers lent to sessions as consume-once leases.")
public @interface StagingPoolConfig {

    @AttributeDefinition(name = "Smallest size class",
            description = "Bytes of the smallest buffer: a power of two, at least 4096 (one page). Default 4096.")
    long min_buffer_size() default 4096L;

    @AttributeDefinition(name = "Largest size class",
            description = "Bytes of the largest buffer and so of the largest lease: a power of two, at least "
                    + "min.buffer.size, at most 1 GiB. Default 64 MiB.")
    long max_buffer_size() default 64L * 1024 * 1024;

    @AttributeDefinition(name = "Total bytes lent",
            description = "Bytes of buffers lent out at once, all principals together (each lease is charged "
                    + "its whole size class). At least max.buffer.size. Default 1 GiB.")
    long max_total_bytes() default 1024L * 1024 * 1024;

    @AttributeDefinition(name = "Bytes lent per principal",
            description = "Bytes of buffers lent out at once to one principal. At least max.buffer.size, at "
                    + "most max.total.bytes. Default 256 MiB.")
    long max_bytes_per_principal() default 256L * 1024 * 1024;

    @AttributeDefinition(name = "Buffers per size class",
            description = "Buffers of one size class that exist at once, lent and idle. At least 1. Default 256.")
    int max_buffers_per_class() default 256;

    @AttributeDefinition(name = "Buffers per principal and size class", min = "1",
            description = "Buffers of one size class lent to one principal at once, so that one principal cannot take"
                    + " a whole class from the others. 1 to max.buffers.per.class (lower it with that). Default 64.")
    int max_buffers_per_principal_per_class() default 64;

    @AttributeDefinition(name = "Idle buffers kept per size class",
            description = "Returned buffers kept registered for reuse, per size class; more are released at "
                    + "return. 1 to max.buffers.per.class. Default 4.")
    int idle_per_class() default 4;

    @AttributeDefinition(name = "Idle timeout (ms)",
            description = "An idle buffer unused this long is deregistered and freed. At least 1. Default 60000.")
    long idle_timeout() default 60_000L;

    @AttributeDefinition(name = "Borrow wait (ms)",
            description = "How long a borrow waits for a limit before failing with LIMIT. 0 fails at once. "
                    + "Default 1000.")
    long borrow_wait() default 1_000L;

    @AttributeDefinition(name = "Lease deadline (ms)",
            description = "A lease held longer is reported once, with its holder hint (it is not revoked). "
                    + "At least 1. Default 60000.")
    long lease_deadline() default 60_000L;

    @AttributeDefinition(name = "Lease check period (ms)",
            description = "How often leases are checked against the deadline. At least 1. Default 5000.")
    long lease_check_period() default 5_000L;

    @AttributeDefinition(name = "Record borrow stacks",
            description = "Record where each lease was borrowed and print it in reports. Costs a stack trace "
                    + "per borrow: for finding leaks, not for production. Default false.")
    boolean lease_trackStacks() default false;

    @AttributeDefinition(name = "Shutdown timeout (ms)",
            description = "On deactivation, how long to wait for leases to come back before reporting the "
                    + "rest. 0 reports at once. Default 5000.")
    long shutdown_timeout() default 5_000L;

    @AttributeDefinition(name = "Zero buffers on return",
            description = "Fill a returned buffer with zeros before it is lent again. Its registration lets the "
                    + "next holder's peer read the whole buffer, so without this one principal's bytes can reach "
                    + "another's peer. Turn off only when every principal is trusted. Default true.")
    boolean scrub_on_return() default true;

    @AttributeDefinition(name = "Transport filter",
            description = "LDAP filter selecting the Transport service to register with; among matches the "
                    + "highest service.ranking wins. Default: any named transport.")
    String transport_target() default "(objrdma.transport.name=*)";
}
