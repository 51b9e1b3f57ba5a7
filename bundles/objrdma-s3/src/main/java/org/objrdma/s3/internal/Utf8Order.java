package org.objrdma.s3.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** S3 orders keys as unsigned UTF-8 bytes, which differs from {@link String#compareTo} beyond the BMP. */
final class Utf8Order {

    private Utf8Order() {
    }

    static int compare(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
