package org.objrdma.cuobj;

/**
 * {@code cuObjAsyncEvent_t}: one completed asynchronous request, filled by {@code poll}. A mutable struct on
 * purpose: callers reuse an array of them, as C callers reuse {@code cuObjAsyncEvent_t[16]}.
 */
public final class CuObjAsyncEvent {
    /** The handle given at submission ({@code async_handle}). */
    public Object asyncHandle;
    /** The completion's {@code ibv_wc_status} value; 0 ({@code IBV_WC_SUCCESS}) is success. */
    public long status;

    public CuObjAsyncEvent() {
    }

    public CuObjAsyncEvent(Object asyncHandle, long status) {
        this.asyncHandle = asyncHandle;
        this.status = status;
    }

    /** The status by name. */
    public org.objrdma.api.transport.WcStatus wcStatus() {
        return org.objrdma.api.transport.WcStatus.fromCode((int) status);
    }

    @Override
    public String toString() {
        return "CuObjAsyncEvent[" + asyncHandle + ", status " + status + "]";
    }
}
