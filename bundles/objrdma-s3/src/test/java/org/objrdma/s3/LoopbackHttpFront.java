package org.objrdma.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The gateway behind the JDK's HTTP server on 127.0.0.1, so a real S3 client talks to it over real
 * sockets inside the test JVM (the servlet adapter needs Pax Web; the itests drive that one). It records
 * each request line, so a test can see what the client sent. Public (in the test jar): the client modules'
 * end-to-end tests put the gateway behind it too.
 */
public final class LoopbackHttpFront implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    /** "METHOD rawQuery" of every request, in arrival order. */
    public final List<String> requests = new CopyOnWriteArrayList<>();

    public LoopbackHttpFront(S3Gateway gateway) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawQuery());
                Response response = new Response(exchange);
                gateway.handle(new Request(exchange), response);
                response.body().close();
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private record Request(HttpExchange exchange) implements S3Request {
        @Override
        public String method() {
            return exchange.getRequestMethod();
        }

        @Override
        public String rawPath() {
            return exchange.getRequestURI().getRawPath();
        }

        @Override
        public String rawQuery() {
            String q = exchange.getRequestURI().getRawQuery();
            return q == null ? "" : q;
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = exchange.getRequestHeaders().get(name);
            return values == null ? List.of() : values;
        }

        @Override
        public Iterable<String> headerNames() {
            return exchange.getRequestHeaders().keySet();
        }

        @Override
        public InputStream body() {
            return exchange.getRequestBody();
        }
    }

    private static final class Response implements S3Response {
        private final HttpExchange exchange;
        private int status = 200;
        private long length = -1;
        private OutputStream body;

        Response(HttpExchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public void status(int s) {
            status = s;
        }

        @Override
        public void header(String name, String value) {
            exchange.getResponseHeaders().set(name, value);
        }

        @Override
        public void contentLength(long n) {
            length = n;
        }

        @Override
        public OutputStream body() throws IOException {
            if (body == null) {
                boolean none = exchange.getRequestMethod().equals("HEAD") || length == 0;
                if (none && length > 0) {
                    exchange.getResponseHeaders().set("Content-Length", String.valueOf(length));
                }
                // the JDK server: -1 = no body, 0 = chunked, n = exactly n bytes
                exchange.sendResponseHeaders(status, none ? -1 : length < 0 ? 0 : length);
                body = new FilterOutputStream(exchange.getResponseBody()) {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        out.write(b, off, len);
                    }
                };
            }
            return body;
        }
    }
}
