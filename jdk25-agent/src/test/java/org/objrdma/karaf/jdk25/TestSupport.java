package org.objrdma.karaf.jdk25;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import javax.security.auth.Subject;
import javax.security.auth.x500.X500Principal;

final class TestSupport {

    static final String FIXTURE_PACKAGE = "org.objrdma.jdk25fixture.";

    private TestSupport() {
    }

    static Subject subject(String name) {
        Subject s = new Subject();
        s.getPrincipals().add(new X500Principal("CN=" + name));
        return s;
    }

    static byte[] classBytes(Class<?> c) {
        return classBytes(c.getName());
    }

    static byte[] classBytes(String binaryName) {
        try (InputStream in = TestSupport.class.getClassLoader()
                .getResourceAsStream(binaryName.replace('.', '/') + ".class")) {
            if (in == null) {
                throw new IllegalArgumentException("no class file for " + binaryName);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String internalName(String binaryName) {
        return binaryName.replace('.', '/');
    }

    @SuppressWarnings("unchecked")
    static <E extends Throwable> E sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
