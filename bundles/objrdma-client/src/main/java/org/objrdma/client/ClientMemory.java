package org.objrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * Client memory registered with a transport for S3-over-RDMA ({@code cuMemObjGetDescriptor}'s counterpart).
 *
 * <p>The registration is <em>local-only</em> ({@code LOCAL_WRITE}): no server reaches the memory through it. What a
 * server is handed for one transfer is a grant of exactly the transfer's slice on the channel that server uses,
 * with exactly the access the operation needs (GET: the server may write, PUT: it may read), revoked when the
 * transfer ends — {@link CuObjAgent#descriptor} and {@link RcClient#begin} make and end them.
 *
 * <p>Ownership: the caller owns the segment and this object; {@link #close()} deregisters (idempotent) and leaves
 * the memory to whoever allocated it. Close only after the transfers that use it ended.
 */
public final class ClientMemory implements AutoCloseable {
    /** Largest registration: 4 GiB - 64 KiB, cuObject's {@code CUOBJ_MAX_MEMORY_REG_SIZE}. */
    public static final long MAX_REGISTRATION = (4L << 30) - (64 << 10);

    private final Transport transport;
    private final MemorySegment segment;
    private final MemoryRegion region;

    private ClientMemory(Transport transport, MemorySegment segment, MemoryRegion region) {
        this.transport = transport;
        this.segment = segment;
        this.region = region;
    }

    /**
     * Registers {@code segment} (native, shared or global arena, 1 byte to {@link #MAX_REGISTRATION}).
     *
     * @throws TransportException INVALID_ARGUMENT for a null, heap, empty or too large segment; what
     *         {@link Transport#register} throws otherwise (nothing stays registered then)
     */
    public static ClientMemory register(Transport transport, MemorySegment segment) throws TransportException {
        Objects.requireNonNull(transport, "transport");
        if (segment == null || segment.byteSize() == 0 || segment.byteSize() > MAX_REGISTRATION) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "client memory must be 1 byte to "
                    + MAX_REGISTRATION + " bytes (4 GiB - 64 KiB), was " + (segment == null ? "null" : segment.byteSize()));
        }
        return new ClientMemory(transport, segment, transport.register(segment, EnumSet.of(Access.LOCAL_WRITE)));
    }

    /** The transport the memory is registered with. */
    public Transport transport() {
        return transport;
    }

    /** The registered memory. */
    public MemorySegment segment() {
        return segment;
    }

    /** Registered bytes. */
    public long size() {
        return segment.byteSize();
    }

    /** The local-only registration: local work requests use it; peers get grants of its slices. */
    public MemoryRegion region() {
        return region;
    }

    /** False once closed or once the transport dropped a registration. */
    public boolean isOpen() {
        return region.isOpen();
    }

    /** CRC32C of {@code [offset, offset + length)}, e.g. to compare with {@code x-amz-checksum-crc32c}. */
    public long crc32c(long offset, long length) {
        CRC32C crc = new CRC32C();
        crc.update(segment.asSlice(offset, length).asByteBuffer());
        return crc.getValue();
    }

    /** Deregisters; idempotent. */
    @Override
    public void close() {
        region.close();
    }

    @Override
    public String toString() {
        return "ClientMemory[" + segment.byteSize() + " bytes on " + transport.name() + "]";
    }
}
