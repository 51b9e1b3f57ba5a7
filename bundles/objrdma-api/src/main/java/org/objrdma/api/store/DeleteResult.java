package org.objrdma.api.store;

import java.util.Objects;

/**
 * The outcome for one key of a DeleteObjects request. Deleting a key that does not exist succeeds, as
 * in S3.
 *
 * @param key     the key as requested
 * @param error   null when deleted, else why not
 * @param message the error's detail, null when deleted
 */
public record DeleteResult(String key, StoreError error, String message) {
    public DeleteResult {
        Objects.requireNonNull(key, "key");
        if ((error == null) != (message == null)) {
            throw new IllegalArgumentException("an error comes with a message, success with none");
        }
    }

    public static DeleteResult deleted(String key) {
        return new DeleteResult(key, null, null);
    }

    public static DeleteResult failed(String key, StoreException e) {
        return new DeleteResult(key, e.error(), e.detail());
    }

    public boolean isDeleted() {
        return error == null;
    }
}
