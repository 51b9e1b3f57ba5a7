package org.objrdma.cuobj;

/**
 * The C enumerations and limits of the cuObject server API as constants, for {@code import static}:
 * {@code cuObjErr_t}, {@code cuObjProto_t}, {@code cuObjOpType_t}, {@code cuObjChannelIdState_t}, the telemetry
 * flags of {@code cuobjtelem.h}, and the documented limits.
 */
public final class CuObj {
    /** {@code cuObjErr_t}: success. */
    public static final int CU_OBJ_SUCCESS = 0;
    /** {@code cuObjErr_t}: failure. */
    public static final int CU_OBJ_FAIL = 1;

    /** {@code cuObjProto_t}: the one protocol value; the constructors accept others without complaint, as in C. */
    public static final int CUOBJ_PROTO_RDMA_DC_V1 = 1001;
    /** {@code cuObjProto_t}: one past the last protocol. */
    public static final int CUOBJ_PROTO_MAX = 1002;

    /** {@code cuObjOpType_t}: the server writes into client memory. */
    public static final int CUOBJ_GET = 0;
    /** {@code cuObjOpType_t}: the server reads client memory. */
    public static final int CUOBJ_PUT = 1;
    /** {@code cuObjOpType_t}: no operation. */
    public static final int CUOBJ_INVALID = 9999;

    /** {@code cuObjChannelIdState_t}: channel free. */
    public static final int CHANNEL_ID_FREE = 0;
    /** {@code cuObjChannelIdState_t}: channel allocated. */
    public static final int CHANNEL_ID_ALLOCATED = 1;
    /** {@code cuObjChannelIdState_t}: channel in use. */
    public static final int CHANNEL_ID_IN_USE = 2;
    /** {@code cuObjChannelIdState_t}: what {@code allocateChannelId()} returns when none is free (UINT16_MAX). */
    public static final int INVALID_CHANNEL_ID = 0xFFFF;

    /** Telemetry path flag: informational lines (server and channel life, registrations). */
    public static final int CUOBJ_LOG_PATH_INFO = 0x0001;
    /** Telemetry path flag: a line per call with its arguments and result. */
    public static final int CUOBJ_LOG_PATH_DEBUG = 0x0002;
    /** Telemetry path flag: a line per failed call with the errno and the reason (the default). */
    public static final int CUOBJ_LOG_PATH_ERROR = 0x0004;
    /**
     * Telemetry operation flag (2.x second mask): a line per completed GET with key, bytes and microseconds.
     * NVIDIA's value is not published; this is objrdma's.
     */
    public static final int CUOBJ_LOG_OP_GET = 0x0001;
    /** Telemetry operation flag: a line per completed PUT (objrdma's value, as {@link #CUOBJ_LOG_OP_GET}). */
    public static final int CUOBJ_LOG_OP_PUT = 0x0002;

    /** Largest transfer of one {@code handleGetObject} / {@code handlePutObject}: 1 GiB. */
    public static final long MAX_TRANSFER_SIZE = 1L << 30;
    /** Most entries of a scatter-gather registration. */
    public static final int MAX_SG_ENTRIES = 10;
    /** Most events one {@code poll} returns; larger {@code max_events} are capped. */
    public static final int MAX_POLL_EVENTS = 16;
    /** Default number of channels ({@code num_dcis}). */
    public static final int DEFAULT_NUM_DCIS = 128;
    /** Alignment of {@code allocHostBuffer}: the page size of Linux on x86-64 (and 4 KiB-page aarch64). */
    public static final long HOST_BUFFER_ALIGNMENT = 4096;

    private CuObj() {
    }
}
