package org.objrdma.verbs.testsupport;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;

/** Instances of configuration annotations, with the defaults the annotation declares. */
public final class Annotations {
    private Annotations() {
    }

    /**
     * An instance of {@code type} whose methods return {@code values} (keyed by method name, e.g.
     * {@code library_path}) or else the declared default.
     */
    public static <A> A of(Class<A> type, Map<String, Object> values) {
        for (String key : values.keySet()) {
            try {
                type.getMethod(key);
            } catch (NoSuchMethodException e) {
                throw new IllegalArgumentException(type.getSimpleName() + " has no " + key);
            }
        }
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            if (values.containsKey(m.getName())) {
                return values.get(m.getName());
            }
            return switch (m.getName()) {
                case "annotationType" -> type;
                case "toString" -> type.getSimpleName() + values;
                case "hashCode" -> values.hashCode();
                case "equals" -> p == a[0];
                default -> defaultOf(m);
            };
        }));
    }

    private static Object defaultOf(Method m) {
        Object d = m.getDefaultValue();
        if (d == null) {
            throw new IllegalStateException(m.getName() + " has no default");
        }
        return d;
    }
}
