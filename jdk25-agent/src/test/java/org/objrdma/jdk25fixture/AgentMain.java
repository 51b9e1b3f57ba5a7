package org.objrdma.jdk25fixture;

import java.security.PrivilegedAction;
import java.util.concurrent.atomic.AtomicReference;
import javax.security.auth.Subject;
import javax.security.auth.x500.X500Principal;

/**
 * Main class for the forked-JVM agent test: runs Karaf-style code on the application class path, where the
 * real {@code -javaagent} (not a test class loader) rewrites it. Exits 0 and prints {@code OK} when the
 * pre-JDK-24 semantics hold.
 */
public final class AgentMain {

    private AgentMain() {
    }

    public static void main(String[] args) throws Exception {
        KarafStyleSubjects karaf = new KarafStyleSubjects();
        Subject subject = new Subject();
        subject.getPrincipals().add(new X500Principal("CN=karaf"));
        AtomicReference<Subject> inThread = new AtomicReference<>();
        Subject inside = karaf.doAs(subject, (PrivilegedAction<Subject>) () -> {
            Thread t = new Thread(() -> inThread.set(karaf.currentSubject()));
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return karaf.currentSubject();
        });
        Subject after = karaf.currentSubject();
        if (inside != subject || inThread.get() != subject || after != null) {
            System.out.println("FAIL inside=" + inside + " thread=" + inThread.get() + " after=" + after);
            System.exit(1);
        }
        System.out.println("OK " + inside.getPrincipals().iterator().next().getName());
    }
}
