package org.objrdma.itests.s3;

/**
 * The three request shapes the AWS SDK for Java v2 (2.30+) sends for a PutObject over plain HTTP, by its
 * checksum and chunking settings (measured in shared/spec/s3-gateway.md).
 */
enum ClientMode {
    /** aws-chunked, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, a CRC32 trailer: what a user gets by default. */
    DEFAULTS,
    /** requestChecksumCalculation(WHEN_REQUIRED): aws-chunked with every chunk signed, no trailer. */
    WHEN_REQUIRED,
    /** WHEN_REQUIRED and chunkedEncodingEnabled(false): one signed body, its SHA-256 in the header. */
    UNCHUNKED
}
