package org.objrdma.jdk25fixture;

import java.io.IOException;
import java.io.Serializable;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import javax.security.auth.Subject;

/**
 * Control flow that forces real stack map frames around the rewritten calls: loops, exception handlers,
 * locals of different reference types merged at join points, calls inside handlers and in a static
 * initializer. Other methods have no target calls and must be copied byte for byte.
 */
@SuppressWarnings("removal")
public class TrickyFlow {

    public static final String STATIC_STATE;

    static {
        Subject s = Subject.getSubject(AccessController.getContext());
        STATIC_STATE = s == null ? "none" : "some";
    }

    public static String names(AccessControlContext acc, int rounds) {
        List<String> seen = new ArrayList<>();
        Serializable marker;
        if (rounds % 2 == 0) {
            marker = "even";
        } else {
            marker = Integer.valueOf(rounds);
        }
        for (int i = 0; i < rounds; i++) {
            try {
                Subject s = Subject.getSubject(acc);
                seen.add(s == null ? "null" : String.valueOf(s.getPrincipals().size()));
                if (i == 1) {
                    throw new IllegalStateException("round " + i);
                }
            } catch (IllegalStateException e) {
                Subject again = Subject.getSubject(acc);
                seen.add("caught:" + (again == null ? "null" : "subject"));
            }
        }
        return marker + " " + String.join(",", seen);
    }

    public static Object checked(AccessControlContext acc, boolean fail) throws IOException {
        PrivilegedExceptionAction<Object> action = () -> {
            if (fail) {
                throw new IOException("io");
            }
            return Subject.getSubject(AccessController.getContext());
        };
        try {
            return AccessController.doPrivileged(action, acc);
        } catch (PrivilegedActionException e) {
            Exception cause = e.getException();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException(cause);
        }
    }

    public static int untouched(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += i % 3 == 0 ? i : -i;
        }
        return sum;
    }
}
