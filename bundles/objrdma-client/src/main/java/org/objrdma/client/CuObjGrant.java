package org.objrdma.client;

import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.RemoteSlice;

/**
 * A cuObject descriptor and the grant behind it: the server reaches exactly the described slice, with the
 * operation's access only (GET: write, PUT: read), through the agent lane the descriptor names, until
 * {@link #close()}. Close it once the transfer it was made for ended; a lane reset ends it too.
 */
public final class CuObjGrant implements AutoCloseable {
    private final CuObjDescriptor descriptor;
    private final RemoteSlice slice;

    CuObjGrant(CuObjDescriptor descriptor, RemoteSlice slice) {
        this.descriptor = descriptor;
        this.slice = slice;
    }

    /** The descriptor to hand the server; its rkey is the grant's, never the registration's. */
    public CuObjDescriptor descriptor() {
        return descriptor;
    }

    /** False once closed, or once the lane it was made on was reset or closed. */
    public boolean isValid() {
        return slice.isValid();
    }

    /** Revokes the grant: the server no longer reaches the slice once this returns. Idempotent. */
    @Override
    public void close() {
        slice.close();
    }

    @Override
    public String toString() {
        return "CuObjGrant[" + descriptor.regionSize() + " bytes, " + (isValid() ? "valid" : "revoked") + "]";
    }
}
