package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.wire.SegmentStreams;

/**
 * Reads a request body to its end of stream into a {@link Spool}, digesting as it goes, and enforces the
 * SPI's length rules: fewer bytes than declared is INCOMPLETE_BODY, more is INVALID_ARGUMENT, past the
 * limit ENTITY_TOO_LARGE. An IOException of the body comes out unchanged.
 */
final class BodyReader {
    private BodyReader() {
    }

    static Digests drain(InputStream body, long declared, long limit, Set<ChecksumAlgorithm> algorithms, Spool spool)
            throws StoreException, IOException {
        if (declared > limit) {
            throw new StoreException(StoreError.ENTITY_TOO_LARGE,
                    "the body of " + declared + " bytes exceeds the maximum of " + limit);
        }
        Digester digester = new Digester(algorithms);
        byte[] buffer = new byte[SegmentStreams.CHUNK];
        long total = 0;
        int n;
        while ((n = body.read(buffer, 0, buffer.length)) >= 0) {
            total += n;
            if (declared >= 0 && total > declared) {
                // keep reading to the end so a decoding stream parses its trailer, but store nothing
                while (body.read(buffer) >= 0) {
                    // drain
                }
                throw new StoreException(StoreError.INVALID_ARGUMENT,
                        "the body is longer than its declared length of " + declared + " bytes");
            }
            if (total > limit) {
                throw new StoreException(StoreError.ENTITY_TOO_LARGE, "the body exceeds the maximum of " + limit + " bytes");
            }
            digester.update(buffer, 0, n);
            spool.write(buffer, 0, n);
        }
        if (declared >= 0 && total < declared) {
            throw new StoreException(StoreError.INCOMPLETE_BODY,
                    "the body ended after " + total + " of " + declared + " declared bytes");
        }
        return digester.finish();
    }
}
