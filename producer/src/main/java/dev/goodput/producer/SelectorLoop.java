package dev.goodput.producer;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

import org.slf4j.Logger;

/** Shutdown shared by the project's selector loops (the simulator and the HTTP client). */
public final class SelectorLoop {
    private SelectorLoop() {
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
