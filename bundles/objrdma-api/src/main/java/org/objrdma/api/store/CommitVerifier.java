package org.objrdma.api.store;

/**
 * The caller's last word on a streamed write. A store calls it once, after it has read the body to its
 * end of stream (-1, also when the length was declared) and before it commits, with the digests it
 * computed; if it throws, the store commits nothing and rethrows the exception to the caller. This is where a gateway compares a Content-MD5, an
 * {@code x-amz-checksum-*} header or trailer, or {@code x-amz-content-sha256}, and refuses with
 * {@link StoreError#BAD_DIGEST} or {@link StoreError#CONTENT_SHA256_MISMATCH}.
 */
@FunctionalInterface
public interface CommitVerifier {
    /** Accepts everything. */
    CommitVerifier ACCEPT_ALL = digests -> { };

    /** @throws StoreException to veto the commit */
    void verify(Digests computed) throws StoreException;
}
