package org.objrdma.itests.s3;

import java.net.URI;

/** Where an S3 server under test listens and the credential it accepts. */
public record S3Target(URI endpoint, String accessKey, String secretKey, String region) {
}
