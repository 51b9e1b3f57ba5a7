package org.objrdma.karaf.jdk25;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Child-first loader for one package that passes every class of that package through a
 * {@link ClassFileTransformer} before defining it, the way the JVM does for {@code -javaagent} transformers.
 * A {@code null} transformer defines the original bytes (the "no agent" baseline).
 */
final class TransformingClassLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private final String packagePrefix;
    private final ClassFileTransformer transformer;
    /** internal class name → whether the transformer returned new bytes */
    private final Map<String, Boolean> transformed = new ConcurrentHashMap<>();

    TransformingClassLoader(ClassLoader parent, String packagePrefix, ClassFileTransformer transformer) {
        super("transforming-test-loader", parent);
        this.packagePrefix = packagePrefix;
        this.transformer = transformer;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(packagePrefix)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = defineTransformed(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private Class<?> defineTransformed(String name) throws ClassNotFoundException {
        String internal = name.replace('.', '/');
        byte[] original;
        try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
            if (in == null) {
                throw new ClassNotFoundException(name);
            }
            original = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = original;
        if (transformer != null) {
            try {
                byte[] out = transformer.transform(this, internal, null, null, original);
                if (out != null) {
                    bytes = out;
                }
            } catch (IllegalClassFormatException e) {
                throw new AssertionError(e);
            }
        }
        transformed.put(internal, bytes != original);
        return defineClass(name, bytes, 0, bytes.length);
    }

    boolean wasRewritten(String internalName) {
        return Boolean.TRUE.equals(transformed.get(internalName));
    }

    boolean wasLoaded(String internalName) {
        return transformed.containsKey(internalName);
    }
}
