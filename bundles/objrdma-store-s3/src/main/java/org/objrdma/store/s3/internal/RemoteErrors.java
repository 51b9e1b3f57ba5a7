package org.objrdma.store.s3.internal;

import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Maps what the remote store answered onto the SPI's closed error set: an S3 error code that names a
 * {@link StoreError} maps to it, a code-less answer (HEAD has no body) by its status, anything else —
 * including a failure to reach the remote at all — to INTERNAL_ERROR with the remote's words.
 */
final class RemoteErrors {
    private RemoteErrors() {
    }

    /** @param missing what a bare 404 means in this call (NO_SUCH_KEY, NO_SUCH_BUCKET or NO_SUCH_UPLOAD) */
    static StoreException map(SdkException e, StoreError missing, String what) {
        if (e instanceof AwsServiceException service) {
            String code = service.awsErrorDetails() == null ? null : service.awsErrorDetails().errorCode();
            StoreError byCode = byCode(code);
            if (byCode != null) {
                return new StoreException(byCode, what + ": " + remoteMessage(service), e);
            }
            StoreError byStatus = switch (service.statusCode()) {
                case 404 -> missing;
                case 412 -> StoreError.PRECONDITION_FAILED;
                case 304 -> StoreError.NOT_MODIFIED;
                case 416 -> StoreError.INVALID_RANGE;
                case 403 -> StoreError.ACCESS_DENIED;
                default -> StoreError.INTERNAL_ERROR;
            };
            return new StoreException(byStatus, what + ": remote answered " + service.statusCode()
                    + (code == null ? "" : " " + code) + ": " + remoteMessage(service), e);
        }
        return new StoreException(StoreError.INTERNAL_ERROR, what + ": the remote store failed: " + e.getMessage(), e);
    }

    static int status(SdkException e) {
        return e instanceof AwsServiceException service ? service.statusCode() : -1;
    }

    private static StoreError byCode(String code) {
        if (code == null) {
            return null;
        }
        if (code.equals("AccessDenied")) {
            // the service credential was refused: an operator problem, not the gateway user's
            return StoreError.INTERNAL_ERROR;
        }
        for (StoreError error : StoreError.values()) {
            if (error.s3Code().equals(code)) {
                return error;
            }
        }
        return null;
    }

    private static String remoteMessage(AwsServiceException e) {
        return e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null
                ? e.getMessage() : e.awsErrorDetails().errorMessage();
    }
}
