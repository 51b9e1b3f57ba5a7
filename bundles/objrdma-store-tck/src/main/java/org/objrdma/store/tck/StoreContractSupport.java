package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * The fixture of the store contract suite: a fresh store per test knowing two users, with bucket
 * {@code bucket} owned by {@link #ALICE}, and the helpers the contract classes share. Stores subclass
 * {@link ObjectStoreContractTest}, not this.
 */
public abstract class StoreContractSupport {
    /** The suite's users: access key id → secret. */
    protected static final String ALICE = "ALICEACCESSKEY";
    protected static final String BOB = "BOBACCESSKEY";
    protected static final Map<String, String> USERS = Map.of(ALICE, "alice-secret-1234", BOB, "bob-secret-5678");
    protected static final int MIB = 1024 * 1024;

    protected ObjectStore store;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** A fresh, empty store knowing {@code credentials}. */
    protected abstract ObjectStore createStore(Map<String, String> credentials) throws Exception;

    /** Releases a store made by {@link #createStore}. */
    protected abstract void closeStore(ObjectStore store) throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore(USERS);
        store.createBucket(ALICE, "bucket");
    }

    @AfterEach
    void releaseStore() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        closeStore(store);
    }

    // ---- helpers

    protected static StoreError error(Executable call) {
        try {
            call.run();
        } catch (StoreException e) {
            return e.error();
        } catch (Exception e) {
            fail("expected a StoreException, got " + e);
        }
        return fail("expected a StoreException, the call succeeded");
    }

    /** A call that may throw anything. */
    @FunctionalInterface
    protected interface Executable {
        void run() throws Exception;
    }

    protected PutResult put(String key, byte[] data) throws Exception {
        return store.put("bucket", key, new ByteArrayInputStream(data), data.length, PutOptions.DEFAULT);
    }

    protected byte[] get(String bucket, String key) throws Exception {
        try (ObjectContent c = store.open(bucket, key, Conditions.NONE); InputStream in = c.stream()) {
            return in.readAllBytes();
        }
    }

    protected List<String> keys(ListPage page) {
        return page.objects().stream().map(ObjectSummary::key).toList();
    }

    protected List<String> listAll(ListRequest request) throws StoreException {
        List<String> out = new ArrayList<>();
        ListPage page = store.list("bucket", request);
        while (true) {
            out.addAll(keys(page));
            out.addAll(page.commonPrefixes());
            if (!page.truncated()) {
                return out;
            }
            page = store.list("bucket", request.withContinuationToken(page.nextContinuationToken()));
        }
    }

    /** S3 order: unsigned UTF-8 bytes. */
    protected static int utf8Compare(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

}
