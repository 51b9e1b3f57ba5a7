package org.objrdma.jdk25fixture;

import java.util.ArrayList;
import java.util.List;

/** Never mentions javax.security.auth.Subject: the byte scan must reject it. */
public class NoSubjectUse {
    public List<String> names(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("n" + i);
        }
        return out;
    }
}
