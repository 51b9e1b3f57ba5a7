package org.objrdma.api.store;

import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;

/**
 * What a store computed while the bytes of a put or part streamed in, handed to the
 * {@link CommitVerifier} before anything is committed.
 *
 * @param length    bytes received
 * @param md5Hex    MD5 of the bytes, lower-case hex (the single-put ETag)
 * @param checksums the checksums that were requested (and those the upload's algorithm requires), base64
 */
public record Digests(long length, String md5Hex, Map<ChecksumAlgorithm, String> checksums) {
    public Digests {
        Objects.requireNonNull(md5Hex, "md5Hex");
        checksums = Map.copyOf(checksums);
    }

    /** The MD5 in base64, as a {@code Content-MD5} header carries it. */
    public String md5Base64() {
        return Base64.getEncoder().encodeToString(HexFormat.of().parseHex(md5Hex));
    }
}
