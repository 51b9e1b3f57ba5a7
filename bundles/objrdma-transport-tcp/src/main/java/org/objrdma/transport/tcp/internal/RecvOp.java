package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.WorkRequest;

/** A posted receive: the buffers a peer's SEND lands in, or the slot a WRITE_WITH_IMM completes. */
final class RecvOp {
    final WorkRequest request;
    final CompletionSink sink;
    final long capacity;

    RecvOp(WorkRequest request, CompletionSink sink) {
        this.request = request;
        this.sink = sink;
        this.capacity = request.byteLength();
    }
}
