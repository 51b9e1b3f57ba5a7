package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;

/** Records every terminal event, per session, to prove "exactly once". */
final class RecordingListener implements SessionTerminalListener {
    final Map<SessionId, List<TerminalEvent>> bySession = new ConcurrentHashMap<>();
    final AtomicLong total = new AtomicLong();

    @Override
    public void sessionEnded(TerminalEvent event) {
        bySession.computeIfAbsent(event.sessionId(), k -> new CopyOnWriteArrayList<>()).add(event);
        total.incrementAndGet();
    }

    int count(SessionId id) {
        List<TerminalEvent> events = bySession.get(id);
        return events == null ? 0 : events.size();
    }

    TerminalEvent only(SessionId id) {
        List<TerminalEvent> events = bySession.get(id);
        assertEquals(1, events == null ? 0 : events.size(), "terminal events of " + id + ": " + events);
        return events.get(0);
    }
}
