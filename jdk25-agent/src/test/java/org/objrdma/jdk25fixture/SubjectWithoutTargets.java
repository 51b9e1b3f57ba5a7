package org.objrdma.jdk25fixture;

import java.security.AccessController;
import java.security.PrivilegedAction;
import javax.security.auth.Subject;

/** Mentions Subject (passes the byte scan) but calls none of the redirected methods: must stay untouched. */
@SuppressWarnings("removal")
public class SubjectWithoutTargets {
    public Subject current() {
        return Subject.current();
    }

    public String privileged() {
        return AccessController.doPrivileged((PrivilegedAction<String>) () -> "plain doPrivileged(action)");
    }
}
