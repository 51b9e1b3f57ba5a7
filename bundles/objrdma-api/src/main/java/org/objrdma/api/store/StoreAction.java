package org.objrdma.api.store;

/** What a principal asks to do with an object. */
public enum StoreAction {
    /** Read object bytes (GetObject, a range, a part). */
    GET_OBJECT,
    /** Write object bytes (PutObject, UploadPart). */
    PUT_OBJECT
}
