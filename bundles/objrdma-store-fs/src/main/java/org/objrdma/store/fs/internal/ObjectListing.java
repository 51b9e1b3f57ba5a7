package org.objrdma.store.fs.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * ListObjectsV2 over a key index sorted by UTF-8 bytes. A continuation token is the last entry of the
 * page (a key, or a common prefix whose keys are all skipped on resume), versioned and base64url-encoded.
 */
final class ObjectListing {
    private static final String KEY_TOKEN = "v1k:";
    private static final String PREFIX_TOKEN = "v1p:";

    private ObjectListing() {
    }

    static ListPage page(NavigableMap<Utf8Key, ObjectSummary> index, ListRequest request) throws StoreException {
        Utf8Key prefix = Utf8Key.of(request.prefix());
        String delimiter = request.delimiter();
        Utf8Key after = null;
        Utf8Key skipPrefix = null;
        if (request.continuationToken() != null) {
            String token = decode(request.continuationToken());
            after = Utf8Key.of(token.substring(KEY_TOKEN.length()));
            if (token.startsWith(PREFIX_TOKEN)) {
                skipPrefix = after;
            }
        } else if (request.startAfter() != null) {
            after = Utf8Key.of(request.startAfter());
        }
        NavigableMap<Utf8Key, ObjectSummary> view = after != null && after.compareTo(prefix) >= 0
                ? index.tailMap(after, false) : index.tailMap(prefix, true);
        List<ObjectSummary> objects = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastToken = null;
        boolean truncated = false;
        for (Map.Entry<Utf8Key, ObjectSummary> e : view.entrySet()) {
            Utf8Key key = e.getKey();
            if (!key.startsWith(prefix)) {
                if (key.compareTo(prefix) > 0) {
                    break;
                }
                continue;
            }
            if (skipPrefix != null && key.startsWith(skipPrefix)) {
                continue;
            }
            String rolledUp = rollUp(key.key(), request.prefix(), delimiter);
            if (rolledUp != null) {
                if (!prefixes.isEmpty() && prefixes.getLast().equals(rolledUp)) {
                    continue;
                }
                if (after != null && Utf8Key.of(rolledUp).compareTo(after) <= 0) {
                    // a V1 marker (or start-after) that is itself a common prefix, as V1's NextMarker is:
                    // its keys lie after it but were answered by it on the previous page
                    continue;
                }
                if (objects.size() + prefixes.size() == request.maxKeys()) {
                    truncated = true;
                    break;
                }
                prefixes.add(rolledUp);
                lastToken = PREFIX_TOKEN + rolledUp;
            } else {
                if (objects.size() + prefixes.size() == request.maxKeys()) {
                    truncated = true;
                    break;
                }
                objects.add(e.getValue());
                lastToken = KEY_TOKEN + key.key();
            }
        }
        return new ListPage(objects, prefixes, truncated && lastToken != null, truncated && lastToken != null
                ? Base64.getUrlEncoder().withoutPadding().encodeToString(lastToken.getBytes(StandardCharsets.UTF_8))
                : null);
    }

    /** The common prefix {@code key} rolls up into, or null if it is listed as itself. */
    private static String rollUp(String key, String prefix, String delimiter) {
        if (delimiter.isEmpty()) {
            return null;
        }
        int at = key.indexOf(delimiter, prefix.length());
        return at < 0 ? null : key.substring(0, at + delimiter.length());
    }

    private static String decode(String token) throws StoreException {
        try {
            String s = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            if (s.startsWith(KEY_TOKEN) || s.startsWith(PREFIX_TOKEN)) {
                return s;
            }
        } catch (IllegalArgumentException malformed) {
            // falls through to the same answer as a foreign token
        }
        throw new StoreException(StoreError.INVALID_ARGUMENT, "the continuation token provided is incorrect");
    }
}
