package dev.goodput.proxy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Numbers the turns of the sessions a proxy sees, in the order their calls arrive: a session's
 * first call is turn 1. The most recently seen sessions are remembered (a bounded number: a
 * session not seen for that many others starts again at 1).
 */
final class SessionTurns {
    private final Map<String, Integer> last;

    SessionTurns(int remembered) {
        this.last = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
                return size() > remembered;
            }
        };
    }

    /** The turn of a call of session {@code sessionId} arriving now; null for a call outside any session. */
    synchronized Integer next(String sessionId) {
        return sessionId == null ? null : last.merge(sessionId, 1, Integer::sum);
    }
}
