package org.objrdma.testsupport;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Instances of a component's configuration type (a DS component property type: an annotation or interface whose
 * members are the properties) as Declarative Services hands them over: each member answers the value the test set,
 * else its declared default. Typed: {@link Builder#with} names a member by method reference and takes a value of
 * its type; {@link Builder#set} takes a property name (DS's: {@code library_path} is {@code library.path}, the
 * member's own name works too), refuses a name the type does not have ({@link NoSuchElementException}) and a value
 * of another type ({@link ClassCastException}): never {@code IllegalArgumentException}, so a mistake in a test's
 * configuration cannot pass for the refusal a test of the code under test expects.
 *
 * <pre>{@code
 * StagingPoolConfig c = Configs.of(StagingPoolConfig.class).with(StagingPoolConfig::maxTotalBytes, 1L << 20).build();
 * }</pre>
 *
 * <p>A member with neither a value nor a default throws {@link IllegalStateException} when it is called.
 */
public final class Configs {
    private Configs() {
    }

    /** A builder of {@code type}'s instances. */
    public static <T> Builder<T> of(Class<T> type) {
        if (!type.isInterface()) {
            throw new IllegalStateException(type.getName() + " is not an annotation or interface");
        }
        return new Builder<>(type);
    }

    /** Shorthand: {@code type} with {@code values} keyed by property or member name. */
    public static <T> T of(Class<T> type, Map<String, ?> values) {
        return of(type).setAll(values).build();
    }

    /** The DS property name of a member: {@code $$} → {@code $}, {@code $_$} → {@code -}, {@code __} → {@code _}, {@code _} → {@code .}. */
    static String propertyName(String member) {
        StringBuilder sb = new StringBuilder(member.length());
        for (int i = 0; i < member.length(); i++) {
            char c = member.charAt(i);
            if (c == '$' && member.startsWith("$$", i)) {
                sb.append('$');
                i++;
            } else if (c == '$' && member.startsWith("$_$", i)) {
                sb.append('-');
                i += 2;
            } else if (c == '$') {
                // a lone $ is dropped
            } else if (c == '_' && member.startsWith("__", i)) {
                sb.append('_');
                i++;
            } else if (c == '_') {
                sb.append('.');
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Collects values, then {@link #build}s instances (each build sees the values as they are then). */
    public static final class Builder<T> {
        private final Class<T> type;
        /** member name → value */
        private final Map<String, Object> values = new LinkedHashMap<>();

        private Builder(Class<T> type) {
            this.type = type;
        }

        /** Sets the member {@code member} names (a method reference such as {@code Config::port}). */
        public <V> Builder<T> with(Function<T, V> member, V value) {
            Method m = recordCall(member);
            values.put(m.getName(), checked(m, value));
            return this;
        }

        /**
         * Sets the member whose property name (or member name) is {@code property}.
         *
         * @throws NoSuchElementException if the type has no such member
         * @throws ClassCastException if the value is not of the member's type
         */
        public Builder<T> set(String property, Object value) {
            Method m = member(property);
            values.put(m.getName(), checked(m, value));
            return this;
        }

        public Builder<T> setAll(Map<String, ?> properties) {
            properties.forEach(this::set);
            return this;
        }

        public T build() {
            Map<String, Object> frozen = Map.copyOf(values);
            String text = type.getSimpleName() + frozen;
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
                if (frozen.containsKey(m.getName()) && (args == null || args.length == 0)) {
                    return copyIfArray(frozen.get(m.getName()));
                }
                return switch (m.getName()) {
                    case "annotationType" -> type;
                    case "toString" -> text;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> {
                        Object d = m.getDefaultValue();
                        if (d == null) {
                            throw new IllegalStateException(type.getSimpleName() + "." + m.getName()
                                    + " has no default and the test set no value");
                        }
                        yield copyIfArray(d);
                    }
                };
            }));
        }

        private Method member(String property) {
            for (Method m : type.getMethods()) {
                if (m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers())
                        && (m.getName().equals(property) || propertyName(m.getName()).equals(property))) {
                    return m;
                }
            }
            throw new NoSuchElementException(type.getSimpleName() + " has no property " + property);
        }

        private Object checked(Method m, Object value) {
            Objects.requireNonNull(value, () -> m.getName() + ": a configuration value is never null");
            Class<?> expected = boxed(m.getReturnType());
            if (!expected.isInstance(value)) {
                throw new ClassCastException(type.getSimpleName() + "." + m.getName() + " is "
                        + m.getReturnType().getSimpleName() + ", not " + value.getClass().getSimpleName());
            }
            return value;
        }

        /** Calls {@code member} on a proxy that remembers which method it was. */
        private Method recordCall(Function<T, ?> member) {
            AtomicReference<Method> called = new AtomicReference<>();
            T recorder = type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                    (proxy, m, args) -> {
                        called.compareAndSet(null, m);
                        return zero(m.getReturnType());
                    }));
            member.apply(recorder);
            Method m = called.get();
            if (m == null || m.getParameterCount() != 0) {
                throw new IllegalStateException("not a member of " + type.getSimpleName());
            }
            return m;
        }
    }

    private static Object copyIfArray(Object v) {
        if (v != null && v.getClass().isArray()) {
            int n = Array.getLength(v);
            Object copy = Array.newInstance(v.getClass().getComponentType(), n);
            System.arraycopy(v, 0, copy, 0, n);
            return copy;
        }
        return v;
    }

    private static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return switch (c.getName()) {
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "boolean" -> Boolean.class;
            case "double" -> Double.class;
            case "float" -> Float.class;
            case "short" -> Short.class;
            case "byte" -> Byte.class;
            case "char" -> Character.class;
            default -> Void.class;
        };
    }

    private static Object zero(Class<?> c) {
        if (!c.isPrimitive()) {
            return c.isArray() ? Array.newInstance(c.getComponentType(), 0) : null;
        }
        return switch (c.getName()) {
            case "int" -> 0;
            case "long" -> 0L;
            case "boolean" -> false;
            case "double" -> 0d;
            case "float" -> 0f;
            case "short" -> (short) 0;
            case "byte" -> (byte) 0;
            case "char" -> (char) 0;
            default -> null;
        };
    }
}
