package org.objrdma.s3.auth;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The signed header values to try when a signature does not match at first: Jetty 9.4 (Pax Web 8) hands
 * out a cached spelling of common Content-Type values instead of the bytes received (a client's
 * {@code text/plain; charset=utf-8} arrives as {@code text/plain; charset=UTF-8}; its header cache matches
 * case-insensitively), and the client signed its own spelling. Only the letter case of a Content-Type that
 * carries parameters is varied — the cached spelling differs from the sent one in nothing else — so at most
 * two extra HMACs are computed, and only for a request that would otherwise fail.
 */
final class ContentTypeVariants {

    private ContentTypeVariants() {
    }

    static List<Map<String, List<String>>> of(Map<String, List<String>> values) {
        List<Map<String, List<String>>> out = new ArrayList<>();
        out.add(values);
        List<String> contentType = values.get("content-type");
        if (contentType == null || contentType.size() != 1 || contentType.get(0).indexOf(';') < 0) {
            return out;
        }
        String v = contentType.get(0);
        int semi = v.indexOf(';');
        Set<String> spellings = new LinkedHashSet<>();
        spellings.add(v.substring(0, semi) + v.substring(semi).toLowerCase(Locale.ROOT));
        spellings.add(v.substring(0, semi) + v.substring(semi).toUpperCase(Locale.ROOT).replace("CHARSET=", "charset="));
        spellings.remove(v);
        for (String s : spellings) {
            Map<String, List<String>> copy = new TreeMap<>(values);
            copy.put("content-type", List.of(s));
            out.add(copy);
        }
        return out;
    }
}
