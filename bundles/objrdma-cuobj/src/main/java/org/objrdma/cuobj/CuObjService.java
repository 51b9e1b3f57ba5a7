package org.objrdma.cuobj;

import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What the S3 gateway needs of a cuObject server, as a service: register staging memory, take a channel, move one
 * chunk for a principal, give everything back. The DS component {@code org.objrdma.cuobj} registers its
 * {@link CuObjServer} under this interface (and under the class, for code written against the C API); the gateway
 * binds the interface, so it never constructs a server nor reaches its C-shaped overloads.
 *
 * <p>Implemented by this bundle only ({@link ProviderType}): a method added here is a minor version of the
 * package for consumers. Return values and their order are {@link CuObjServer}'s (class comment there).
 */
@ProviderType
public interface CuObjService {

    /** True while a transfer can succeed: the session is up and the bound transport is available and serves the flow. */
    boolean isConnected();

    /** Registers the first {@code size} bytes of {@code ptr}; null when refused (see {@link CuObjServer#registerBuffer(MemorySegment, long)}). */
    RdmaBuffer registerBuffer(MemorySegment ptr, long size);

    /** Deregisters a buffer this service registered; null and a second call are no-ops. */
    void deRegisterBuffer(RdmaBuffer buffer);

    /** The lowest free channel id, or {@link CuObj#INVALID_CHANNEL_ID}. */
    int allocateChannelId();

    /** Frees a channel; an id not allocated is a no-op. */
    void freeChannelId(int channelId);

    /** Channels allocated now. */
    int allocatedChannelCount();

    /**
     * Sends {@code size} bytes of {@code buf} into the client memory the descriptor names, dialing the client agent
     * with {@code principal}'s key only. Returns the byte count, 0 for an accepted asynchronous request, or a
     * negative errno.
     */
    long handleGetObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                         String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle);

    /** Reads {@code size} bytes of the client memory into {@code buf}; returns as {@link #handleGetObject}. */
    long handlePutObject(CuObjPrincipal principal, String key, RdmaBuffer buf, long remoteBufStart, long size,
                         String rdmaDescr, int channel, long localOffset, int[] status, Object asyncHandle);
}
