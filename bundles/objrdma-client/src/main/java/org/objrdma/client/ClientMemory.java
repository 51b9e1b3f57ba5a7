package org.objrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * Client memory registered with a transport for S3-over-RDMA ({@code cuMemObjGetDescriptor}'s counterpart).
 *
 * <p>The memory is registered twice, so that what a server is handed allows exactly what the operation needs:
 * <ul>
 *   <li>the <em>writable</em> region ({@code LOCAL_WRITE, REMOTE_WRITE}) is what GET descriptors and tokens name:
 *       a server given a GET descriptor can write into the memory but not read it;</li>
 *   <li>the <em>readable</em> region ({@code REMOTE_READ}) is what PUT descriptors name: a server given a PUT
 *       descriptor can read the memory but not change it.</li>
 * </ul>
 *
 * <p>Ownership: the caller owns the segment and this object; {@link #close()} deregisters both regions
 * (idempotent) and leaves the memory to whoever allocated it. Close only after the transfers that use it ended.
 */
public final class ClientMemory implements AutoCloseable {
    /** Largest registration: 4 GiB - 64 KiB, cuObject's {@code CUOBJ_MAX_MEMORY_REG_SIZE}. */
    public static final long MAX_REGISTRATION = (4L << 30) - (64 << 10);

    private final Transport transport;
    private final MemorySegment segment;
    private final MemoryRegion writable;
    private final MemoryRegion readable;

    private ClientMemory(Transport transport, MemorySegment segment, MemoryRegion writable, MemoryRegion readable) {
        this.transport = transport;
        this.segment = segment;
        this.writable = writable;
        this.readable = readable;
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
        MemoryRegion writable = transport.register(segment, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        try {
            MemoryRegion readable = transport.register(segment, EnumSet.of(Access.REMOTE_READ));
            return new ClientMemory(transport, segment, writable, readable);
        } catch (TransportException | RuntimeException e) {
            writable.close();
            throw e;
        }
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

    /** The region servers may write into (GET). */
    public MemoryRegion writableRegion() {
        return writable;
    }

    /** The region servers may read from (PUT). */
    public MemoryRegion readableRegion() {
        return readable;
    }

    /** The remote view of {@code [offset, offset + length)} of the region a server needs for {@code get} or not. */
    public RemoteRegion remote(boolean forGet, long offset, long length) {
        return (forGet ? writable : readable).asRemote().slice(offset, length);
    }

    /** False once closed or once the transport dropped a registration. */
    public boolean isOpen() {
        return writable.isOpen() && readable.isOpen();
    }

    /** CRC32C of {@code [offset, offset + length)}, e.g. to compare with {@code x-amz-checksum-crc32c}. */
    public long crc32c(long offset, long length) {
        CRC32C crc = new CRC32C();
        crc.update(segment.asSlice(offset, length).asByteBuffer());
        return crc.getValue();
    }

    /** Deregisters both regions; idempotent. */
    @Override
    public void close() {
        readable.close();
        writable.close();
    }

    @Override
    public String toString() {
        return "ClientMemory[" + segment.byteSize() + " bytes on " + transport.name() + "]";
    }
}
