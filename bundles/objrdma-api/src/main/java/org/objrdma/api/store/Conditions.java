package org.objrdma.api.store;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The conditional headers of a GET or HEAD (or the {@code x-amz-copy-source-if-*} of a copy), evaluated
 * in RFC 9110's order, which is also S3's: If-Match, else If-Unmodified-Since, may fail the request
 * (412); then If-None-Match, else If-Modified-Since, may end it as not modified (304). Dates compare at
 * whole seconds, as HTTP dates carry them.
 *
 * @param ifMatch           If-Match as sent (a list of entity tags, quoted or not, or {@code *}), or null
 * @param ifNoneMatch       If-None-Match as sent, or null
 * @param ifModifiedSince   If-Modified-Since, or null
 * @param ifUnmodifiedSince If-Unmodified-Since, or null
 */
public record Conditions(String ifMatch, String ifNoneMatch, Instant ifModifiedSince, Instant ifUnmodifiedSince) {
    /** No condition. */
    public static final Conditions NONE = new Conditions(null, null, null, null);

    /** What the conditions say about one version of an object. */
    public enum Outcome {
        /** Serve the object. */
        PROCEED,
        /** 304: the caller's copy is current. */
        NOT_MODIFIED,
        /** 412: a precondition failed. */
        PRECONDITION_FAILED
    }

    public static Conditions ifMatch(String etag) {
        return new Conditions(etag, null, null, null);
    }

    public static Conditions ifNoneMatch(String etag) {
        return new Conditions(null, etag, null, null);
    }

    public boolean isEmpty() {
        return ifMatch == null && ifNoneMatch == null && ifModifiedSince == null && ifUnmodifiedSince == null;
    }

    public Outcome evaluate(String etag, Instant lastModified) {
        Instant modified = lastModified.truncatedTo(ChronoUnit.SECONDS);
        if (ifMatch != null) {
            if (!matches(ifMatch, etag)) {
                return Outcome.PRECONDITION_FAILED;
            }
        } else if (ifUnmodifiedSince != null && modified.isAfter(ifUnmodifiedSince)) {
            return Outcome.PRECONDITION_FAILED;
        }
        if (ifNoneMatch != null) {
            if (matches(ifNoneMatch, etag)) {
                return Outcome.NOT_MODIFIED;
            }
        } else if (ifModifiedSince != null && !modified.isAfter(ifModifiedSince)) {
            return Outcome.NOT_MODIFIED;
        }
        return Outcome.PROCEED;
    }

    /**
     * Throws unless the outcome is {@link Outcome#PROCEED}.
     *
     * @throws StoreException PRECONDITION_FAILED or NOT_MODIFIED
     */
    public void check(String etag, Instant lastModified) throws StoreException {
        switch (evaluate(etag, lastModified)) {
            case PROCEED -> { }
            case NOT_MODIFIED -> throw new StoreException(StoreError.NOT_MODIFIED, "the object was not modified");
            case PRECONDITION_FAILED -> throw new StoreException(StoreError.PRECONDITION_FAILED,
                    "at least one of the preconditions you specified did not hold");
        }
    }

    /**
     * As {@link #check} for the source of a copy, where S3 answers every failed condition with 412.
     *
     * @throws StoreException PRECONDITION_FAILED
     */
    public void checkCopySource(String etag, Instant lastModified) throws StoreException {
        if (evaluate(etag, lastModified) != Outcome.PROCEED) {
            throw new StoreException(StoreError.PRECONDITION_FAILED,
                    "at least one of the copy-source preconditions you specified did not hold");
        }
    }

    /** True if the header's list names {@code etag} or is {@code *}; quotes and {@code W/} are ignored. */
    static boolean matches(String header, String etag) {
        String bare = unquote(etag);
        for (String candidate : header.split(",")) {
            String c = candidate.strip();
            if (c.equals("*")) {
                return true;
            }
            if (c.startsWith("W/")) {
                c = c.substring(2);
            }
            if (unquote(c).equals(bare)) {
                return true;
            }
        }
        return false;
    }

    /** {@code etag} without surrounding double quotes. */
    public static String unquote(String etag) {
        String s = etag.strip();
        if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
