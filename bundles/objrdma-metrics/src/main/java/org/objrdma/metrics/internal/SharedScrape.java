package org.objrdma.metrics.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Scrapes that arrive together share one: per format, while a scrape is being taken every scraper that asks
 * gets that one when it is done instead of queueing to take its own. So N concurrent scrapes cost about one
 * and no scraper waits behind other scrapers' work; a scraper that asks after a scrape finished gets a fresh
 * one. Only the taking of a scrape is exclusive (its snapshots are shared by the gauges it writes).
 */
final class SharedScrape {

    /** Takes one scrape in the given format. */
    interface Taker {
        byte[] take(String contentType) throws IOException;
    }

    private final Taker taker;
    /** Per content type, the scrape being taken. */
    private final Map<String, CompletableFuture<byte[]>> inFlight = new ConcurrentHashMap<>();
    private final Object taking = new Object();

    SharedScrape(Taker taker) {
        this.taker = taker;
    }

    byte[] get(String contentType) throws IOException {
        CompletableFuture<byte[]> mine = new CompletableFuture<>();
        CompletableFuture<byte[]> current = inFlight.putIfAbsent(contentType, mine);
        if (current == null) {
            current = mine;
            try {
                synchronized (taking) {
                    mine.complete(taker.take(contentType));
                }
            } catch (IOException | RuntimeException | Error e) {
                mine.completeExceptionally(e);
            } finally {
                inFlight.remove(contentType, mine);
            }
        }
        try {
            return current.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new UncheckedIOException(new IOException(e.getCause()));
        }
    }
}
