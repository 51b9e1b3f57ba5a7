package org.objrdma.store.s3.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * Continuation tokens the adapter issues: the remote store's token, MACed with a key derived from the
 * service secret. Every gateway in front of the same store derives the same key, so a page listed on one
 * node continues on another; a token the adapter did not issue is refused (INVALID_ARGUMENT) instead of
 * being passed to the remote as a start key.
 */
final class ListTokens {
    private static final int MAC_BYTES = 16;
    private final SecretKeySpec key;

    ListTokens(String serviceSecret) {
        this.key = new SecretKeySpec(("objrdma-list-token:" + serviceSecret).getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    String issue(String remoteToken) {
        byte[] body = remoteToken.getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(mac(body), MAC_BYTES + body.length);
        System.arraycopy(body, 0, out, MAC_BYTES, body.length);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    }

    String redeem(String token) throws StoreException {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw foreign();
        }
        if (raw.length <= MAC_BYTES) {
            throw foreign();
        }
        byte[] body = Arrays.copyOfRange(raw, MAC_BYTES, raw.length);
        if (!MessageDigest.isEqual(Arrays.copyOf(mac(body), MAC_BYTES), Arrays.copyOf(raw, MAC_BYTES))) {
            throw foreign();
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    private byte[] mac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JDK", e);
        }
    }

    private static StoreException foreign() {
        return new StoreException(StoreError.INVALID_ARGUMENT, "the continuation token was not issued by this store");
    }
}
