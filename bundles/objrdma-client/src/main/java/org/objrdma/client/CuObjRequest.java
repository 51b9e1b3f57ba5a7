package org.objrdma.client;

import java.util.Objects;
import java.util.Optional;
import org.objrdma.api.session.Op;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.CuObjTokenHeader;

/**
 * One request a {@link CuObjAgent} transfer hands to the caller's HTTP layer: an S3 GET (ranged) or PUT /
 * UploadPart carrying {@link #headerValue()} as {@code x-amz-rdma-token}. The server moves {@link #size()} bytes
 * between the object at {@link #objectOffset()} and the client memory at {@link #remoteStart()}.
 *
 * @param op           GET (the server writes into client memory) or PUT (the server reads it)
 * @param descriptor   the 81-hex descriptor of the whole transfer's client memory
 * @param remoteStart  client address of this request's first byte ({@code remote_buf_start})
 * @param size         bytes of this request, at most {@link CuObjAgent#maxRequestSize()}
 * @param objectOffset offset in the object (the Range start of a GET, the part offset of a PUT)
 */
public record CuObjRequest(Op op, CuObjDescriptor descriptor, long remoteStart, long size, long objectOffset) {
    public CuObjRequest {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(descriptor, "descriptor");
    }

    /** The bare descriptor, as {@code cuMemObjGetRDMAToken} gives it. */
    public String descriptorText() {
        return descriptor.format();
    }

    /** The descriptor with {@code :remoteStart:size} appended: the header form that names the transfer exactly. */
    public String headerValue() {
        return new CuObjTokenHeader(descriptor, Optional.of(new CuObjTokenHeader.Span(remoteStart, size))).format();
    }
}
