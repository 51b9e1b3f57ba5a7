package org.objrdma.store.fs.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A key ordered as S3 orders keys: by its UTF-8 bytes, unsigned. */
record Utf8Key(String key, byte[] utf8) implements Comparable<Utf8Key> {

    static Utf8Key of(String key) {
        return new Utf8Key(key, key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int compareTo(Utf8Key other) {
        return Arrays.compareUnsigned(utf8, other.utf8);
    }

    boolean startsWith(Utf8Key prefix) {
        return utf8.length >= prefix.utf8.length
                && Arrays.equals(utf8, 0, prefix.utf8.length, prefix.utf8, 0, prefix.utf8.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Utf8Key k && key.equals(k.key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return key;
    }
}
