package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.Completion;

/** Where the completion of one work request goes: the channel's poll queue or one slot of a batch. */
@FunctionalInterface
interface CompletionSink {
    void accept(Completion completion);
}
