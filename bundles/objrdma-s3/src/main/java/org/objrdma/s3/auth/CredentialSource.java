package org.objrdma.s3.auth;

import java.util.Optional;

/** Where the authenticator looks up the secret of an access key (the store SPI's credentials). */
@FunctionalInterface
public interface CredentialSource {

    /** The secret of {@code accessKeyId}, or empty if the key is unknown. */
    Optional<String> secretKey(String accessKeyId);
}
