package dev.goodput.loop;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Iterator;
import java.util.Queue;

import org.slf4j.Logger;

/** Shutdown shared by the project's selector loops (the simulator and the HTTP client). */
public final class SelectorLoop {
    private SelectorLoop() {
    }

    /** What a selector loop does with a key that is ready. */
    public interface Ready {
        void ready(SelectionKey key) throws IOException;
    }

    /**
     * One round of a selector loop: waits up to {@code timeoutMs} for a key, runs the tasks other
     * threads queued, then hands each valid selected key to {@code ready}.
     */
    public static void round(Selector selector, long timeoutMs, Queue<Runnable> tasks, Ready ready) throws IOException {
        selector.select(timeoutMs);
        Runnable t;
        while ((t = tasks.poll()) != null) {
            t.run();
        }
        final Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            final SelectionKey k = it.next();
            it.remove();
            if (k.isValid()) {
                ready.ready(k);
            }
        }
    }

    /** Wakes the loop (which must already see its running flag cleared), waits for it, and closes every channel. */
    public static void stop(Selector selector, Thread loop, Logger log) {
        selector.wakeup();
        try {
            loop.join(5_000);
            for (SelectionKey k : selector.keys()) {
                k.channel().close();
            }
            selector.close();
        } catch (IOException e) {
            log.debug("closing {}: {}", loop.getName(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
