package org.objrdma.api.store;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A satisfiable byte range of an object: {@code length} bytes from {@code offset}.
 *
 * @param offset first byte
 * @param length bytes, at least 1
 */
public record ByteRange(long offset, long length) {
    private static final Pattern SINGLE = Pattern.compile("bytes=(\\d*)-(\\d*)");

    public ByteRange {
        if (offset < 0 || length < 1) {
            throw new IllegalArgumentException("a range has a non-negative offset and at least one byte");
        }
    }

    /** The last byte's offset, as a Content-Range prints it. */
    public long last() {
        return offset + length - 1;
    }

    /**
     * Resolves a {@code Range} header against an object of {@code size} bytes, as S3 does: no header, a
     * syntactically invalid one, or a multi-range list means the whole object (empty result); a range
     * past the end is cut at the end; a first byte at or past the end (or {@code bytes=-0}) is
     * unsatisfiable.
     *
     * @throws StoreException INVALID_RANGE when unsatisfiable
     */
    public static Optional<ByteRange> resolve(String rangeHeader, long size) throws StoreException {
        if (rangeHeader == null) {
            return Optional.empty();
        }
        Matcher m = SINGLE.matcher(rangeHeader.strip());
        if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
            return Optional.empty();
        }
        try {
            if (m.group(1).isEmpty()) {
                long suffix = Long.parseLong(m.group(2));
                if (suffix == 0 || size == 0) {
                    throw unsatisfiable(rangeHeader, size);
                }
                long n = Math.min(suffix, size);
                return Optional.of(new ByteRange(size - n, n));
            }
            long first = Long.parseLong(m.group(1));
            long last = m.group(2).isEmpty() ? Long.MAX_VALUE : Long.parseLong(m.group(2));
            if (last < first) {
                return Optional.empty();
            }
            if (first >= size) {
                throw unsatisfiable(rangeHeader, size);
            }
            return Optional.of(new ByteRange(first, Math.min(last, size - 1) - first + 1));
        } catch (NumberFormatException tooLong) {
            return Optional.empty();
        }
    }

    private static StoreException unsatisfiable(String header, long size) {
        return new StoreException(StoreError.INVALID_RANGE,
                "the range " + header + " is not satisfiable for an object of " + size + " bytes");
    }
}
