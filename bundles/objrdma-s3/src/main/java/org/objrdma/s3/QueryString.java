package org.objrdma.s3;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A raw query string parsed into decoded name/value pairs, in order; a name without {@code =} has value "". */
public final class QueryString {

    /** One decoded parameter; {@code hasValue} is false for a bare name ({@code ?uploads}). */
    public record Param(String name, String value, boolean hasValue) {
    }

    private final List<Param> params;

    private QueryString(List<Param> params) {
        this.params = params;
    }

    public static QueryString parse(String raw) throws S3Exception {
        List<Param> out = new ArrayList<>();
        if (raw != null && !raw.isEmpty()) {
            for (String part : raw.split("&", -1)) {
                if (part.isEmpty()) {
                    continue;
                }
                int eq = part.indexOf('=');
                if (eq < 0) {
                    out.add(new Param(UriEncoding.decode(part), "", false));
                } else {
                    out.add(new Param(UriEncoding.decode(part.substring(0, eq)),
                            UriEncoding.decode(part.substring(eq + 1)), true));
                }
            }
        }
        return new QueryString(Collections.unmodifiableList(out));
    }

    public List<Param> params() {
        return params;
    }

    public boolean has(String name) {
        return get(name) != null;
    }

    /** The first value of {@code name}, or null if absent. */
    public String get(String name) {
        for (Param p : params) {
            if (p.name().equals(name)) {
                return p.value();
            }
        }
        return null;
    }
}
