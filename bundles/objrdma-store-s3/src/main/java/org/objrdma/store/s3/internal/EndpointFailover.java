package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One {@link S3Client} over several endpoints of one cluster (e.g. the RGWs of one Ceph). Every operation goes
 * to the preferred endpoint; when that endpoint fails — no HTTP answer at all (refused, reset, timed out: an
 * {@link SdkClientException} caused by an {@link IOException}) or one of {@code failover.statuses} — after the
 * SDK's own retries on it, the same call is made on the next endpoint, each endpoint at most once per call, and
 * the failed one is passed over for {@code failover.cooldown.ms} (tried again only when every endpoint is cooling
 * down). An S3 error answer (NoSuchKey, 403, ...) is the cluster's answer and is returned as it is.
 *
 * <p>Why a proxy over the interface: the SDK's endpoint is fixed per client, and every operation of the adapter
 * must fail over the same way; wrapping the interface catches them all, including the paginators (their default
 * methods are run on the proxy, so each page request fails over too). Request bodies are re-creatable
 * ({@code ContentStreamProvider}), as the SDK's own retries already need. A response stream that breaks after
 * the headers is not resumed elsewhere: the reader gets the I/O error.
 *
 * <p>What a moved call means: a read, a PUT of a whole object or part, a DELETE are idempotent. A
 * CreateMultipartUpload or CompleteMultipartUpload whose answer was lost can have happened on the cluster; the
 * retry then makes a second upload id (left for the remote's lifecycle) or answers NoSuchUpload — the SDK's own
 * retries on one endpoint have the same property.
 */
final class EndpointFailover implements InvocationHandler {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EndpointFailover.class);
    private final List<URI> endpoints;
    private final List<S3Client> clients;
    private final Set<Integer> failoverStatuses;
    private final long cooldownNanos;
    private final LongSupplier clock;
    private final AtomicLongArray coolingUntil;
    private final Runnable onClose;
    private final Map<Method, Boolean> implemented = new ConcurrentHashMap<>();

    private final AtomicInteger preferredShared;

    private EndpointFailover(List<URI> endpoints, List<S3Client> clients, Set<Integer> failoverStatuses,
            long cooldownMs, LongSupplier clock, Runnable onClose) {
        this(endpoints, clients, failoverStatuses, cooldownMs * 1_000_000, clock, onClose, new AtomicInteger(),
                new AtomicLongArray(clients.size()));
    }

    private EndpointFailover(List<URI> endpoints, List<S3Client> clients, Set<Integer> failoverStatuses,
            long cooldownNanos, LongSupplier clock, Runnable onClose, AtomicInteger preferred, AtomicLongArray cooling) {
        this.endpoints = List.copyOf(endpoints);
        this.clients = List.copyOf(clients);
        this.failoverStatuses = Set.copyOf(failoverStatuses);
        this.cooldownNanos = cooldownNanos;
        this.clock = clock;
        this.coolingUntil = cooling;
        this.onClose = onClose;
        this.preferredShared = preferred;
    }

    /**
     * A second client over the same endpoints ({@code clients}: other SDK settings, same order) that shares this
     * one's view of them: the preferred endpoint and the cooling ones. Closing it closes {@code clients} only.
     */
    static S3Client sibling(S3Client failover, List<S3Client> clients) {
        EndpointFailover of = (EndpointFailover) Proxy.getInvocationHandler(failover);
        EndpointFailover handler = new EndpointFailover(of.endpoints, clients, of.failoverStatuses, of.cooldownNanos,
                of.clock, () -> { }, of.preferredShared, of.coolingUntil);
        return (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                handler);
    }

    /**
     * The client over {@code clients} (one per endpoint, same order; one endpoint works the same, without a choice);
     * closing it closes them, then runs onClose.
     */
    static S3Client over(List<URI> endpoints, List<S3Client> clients, Set<Integer> failoverStatuses, long cooldownMs,
            Runnable onClose) {
        EndpointFailover handler = new EndpointFailover(endpoints, clients, failoverStatuses, cooldownMs,
                System::nanoTime, onClose);
        return (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                handler);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "S3Client over " + endpoints;
            };
        }
        if (method.getName().equals("close") && method.getParameterCount() == 0) {
            try {
                clients.forEach(S3Client::close);
            } finally {
                onClose.run();
            }
            return null;
        }
        if (method.isDefault() && !implementedByClient(method)) {
            // convenience forms (consumer builders, paginators): run on the proxy, they end in an operation below
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        return call(method, args);
    }

    private boolean implementedByClient(Method method) {
        return implemented.computeIfAbsent(method, m -> {
            try {
                return clients.getFirst().getClass().getMethod(m.getName(), m.getParameterTypes())
                        .getDeclaringClass() != S3Client.class;
            } catch (NoSuchMethodException e) {
                return false;
            }
        });
    }

    private Object call(Method method, Object[] args) throws Throwable {
        int n = clients.size();
        int first = firstCandidate();
        Throwable last = null;
        for (int attempt = 0; attempt < n; attempt++) {
            int i = (first + attempt) % n;
            try {
                Object result = method.invoke(clients.get(i), args);
                if (preferredShared.get() != i) {
                    int was = preferredShared.getAndSet(i);
                    if (was != i) {
                        LOG.warn("S3 store: now using {} instead of {}", endpoints.get(i), endpoints.get(was));
                    }
                }
                return result;
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (!endpointFailed(cause)) {
                    throw cause;
                }
                coolingUntil.set(i, clock.getAsLong() + cooldownNanos);
                LOG.warn("S3 store: {} on {} failed ({}){}", method.getName(), endpoints.get(i), summary(cause),
                        attempt + 1 < n ? ", trying " + endpoints.get((i + 1) % n) : ", no endpoint left");
                if (last != null) {
                    cause.addSuppressed(last);
                }
                last = cause;
            }
        }
        throw last;
    }

    /** The preferred endpoint unless it is cooling down, else the next one that is not; all cooling: the preferred. */
    private int firstCandidate() {
        int n = clients.size();
        int start = preferredShared.get();
        long now = clock.getAsLong();
        for (int k = 0; k < n; k++) {
            int i = (start + k) % n;
            if (coolingUntil.get(i) - now <= 0) {
                return i;
            }
        }
        return start;
    }

    /** No answer from the endpoint at all, or a status configured to mean the endpoint (not the request) failed. */
    boolean endpointFailed(Throwable t) {
        if (VerifiedBody.Refused.in(t) != null) {
            return false; // the client's body was refused (or broke): the endpoint did nothing wrong
        }
        if (t instanceof AwsServiceException service) {
            return failoverStatuses.contains(service.statusCode());
        }
        if (t instanceof SdkClientException) {
            for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
                if (c instanceof IOException) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String summary(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? String.valueOf(t.getMessage()) : t.getClass().getSimpleName() + ": " + root;
    }
}
