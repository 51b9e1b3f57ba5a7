package org.objrdma.cuobj;

/**
 * {@code cuObjScatterGatherEntryWithOffset_t}: one piece of a view over a registered buffer. Checked by
 * {@code getRDMABufferFromSgList}, which refuses (null) an entry that is not inside the base buffer.
 *
 * @param offset offset into the base buffer
 * @param size   bytes
 */
public record CuObjScatterGatherEntryWithOffset(long offset, long size) {
}
