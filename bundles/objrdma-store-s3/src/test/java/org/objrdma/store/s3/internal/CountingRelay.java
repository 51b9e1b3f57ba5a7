package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP relay in front of a remote store that counts the bytes sent towards it, so a test can see how
 * much of a request body had reached the remote at a given moment (e.g. when the commit verifier runs).
 */
final class CountingRelay implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final AtomicLong upstream = new AtomicLong();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    CountingRelay(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Bytes relayed towards the remote so far. */
    long upstream() {
        return upstream.get();
    }

    private void accept() {
        try {
            while (true) {
                Socket in = server.accept();
                Socket out = new Socket(target.getAddress(), target.getPort());
                open.add(in);
                open.add(out);
                Thread.ofVirtual().start(() -> pump(in, out, upstream));
                Thread.ofVirtual().start(() -> pump(out, in, new AtomicLong()));
            }
        } catch (IOException closed) {
            // the relay was closed
        }
    }

    private static void pump(Socket from, Socket to, AtomicLong counter) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0;) {
                out.write(buffer, 0, n);
                out.flush();
                counter.addAndGet(n);
            }
        } catch (IOException ended) {
            // one side went away
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
