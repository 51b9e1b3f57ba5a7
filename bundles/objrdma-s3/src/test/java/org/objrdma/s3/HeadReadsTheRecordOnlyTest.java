package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Issue 28: a HEAD without {@code partNumber} asks the store for the object's record ({@code head}) and never opens
 * the object — a store may open by starting the read (the S3 adapter opens with one whole-object GET, which a HEAD
 * would then abort). The store here is the real filesystem store, its calls counted on the way through.
 */
class HeadReadsTheRecordOnlyTest {
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private Path root;
    private RdmaFixture f;

    @BeforeEach
    void start() throws Exception {
        root = Files.createTempDirectory("objrdma-head");
        f = new RdmaFixture(RdmaSettings.DEFAULTS, false, b -> { }, credentials -> {
            EmbeddedStore real = EmbeddedStores.filesystem(root, credentials, 1L << 40, true);
            return (EmbeddedStore) Proxy.newProxyInstance(EmbeddedStore.class.getClassLoader(),
                    new Class<?>[] {EmbeddedStore.class}, (proxy, method, args) -> {
                        calls.computeIfAbsent(method.getName(), k -> new AtomicInteger()).incrementAndGet();
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        });
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        assertEquals(200, f.call("PUT", "/bkt/k", "", random(10_000, 1)).status);
    }

    @AfterEach
    void stop() throws Exception {
        f.close();
        try (var files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private int count(String method) {
        return calls.getOrDefault(method, new AtomicInteger()).get();
    }

    @Test
    void aHeadAsksForTheRecordAndOpensNothing() throws Exception {
        calls.clear();
        TestResponse head = f.call("HEAD", "/bkt/k", "", null);
        assertEquals(200, head.status);
        assertEquals("\"" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5")
                .digest(random(10_000, 1))) + "\"", head.header("ETag"));
        assertEquals(0, count("open"), "HEAD opened the object");
        assertEquals(1, count("head"));
        String etag = head.header("ETag");
        TestResponse notModified = f.call("HEAD", "/bkt/k", "", null, "If-None-Match", etag);
        assertEquals(304, notModified.status);
        assertEquals(etag, notModified.header("ETag"), "a 304 still names the version");
        assertEquals(404, f.call("HEAD", "/bkt/missing", "", null).status);
        assertEquals(404, f.call("HEAD", "/nobkt/k", "", null).status);
        TestResponse ranged = f.call("HEAD", "/bkt/k", "", null, "Range", "bytes=10-19");
        assertEquals(206, ranged.status);
        assertEquals("bytes 10-19/10000", ranged.header("Content-Range"));
        assertEquals(0, count("open"), "no HEAD opened the object");
    }

    @Test
    void aHeadOfAPartAndEveryGetStillOpen() throws Exception {
        calls.clear();
        assertEquals(206, f.call("HEAD", "/bkt/k", "partNumber=1", null).status, "part 1 of a single put, as S3");
        assertEquals(1, count("open"), "a part's range comes from the opened version");
        TestResponse get = f.call("GET", "/bkt/k", "", null);
        assertEquals(200, get.status);
        assertEquals(10_000, get.bytes().length);
        assertEquals(2, count("open"));
    }
}
