package dev.goodput.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.TreeMap;

import dev.goodput.topics.Topics;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

/**
 * Waits for prices to reach the sink's cost tasks. A price travels gpu.prices, the price gate and a
 * broadcast repartition topic; a window published at the same moment travels its own repartition
 * topic, and whichever reaches a cost task first is processed first: a test that publishes a window
 * right after the sink starts must wait for the price, not for a fixed time.
 */
final class PriceStores {
    private PriceStores() {
    }

    /**
     * Waits until every partition's price store, on whichever instance hosts it, holds {@code versions}
     * versions of {@code priceKey} (the refused one is never stored); the bound only keeps a broken build from hanging.
     */
    static void await(List<KafkaStreams> apps, String priceKey, int versions) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        final int partitions = Topics.WINDOW_STATS.partitions();
        int ready = 0;
        while (System.nanoTime() < deadline) {
            ready = 0;
            for (int p = 0; p < partitions; p++) {
                for (KafkaStreams app : apps) {
                    try {
                        final var store = app.store(StoreQueryParameters.fromNameAndType(
                                CostProcessor.PRICES, QueryableStoreTypes.<String, TreeMap<Long, byte[]>>keyValueStore())
                                .withPartition(p));
                        final TreeMap<Long, byte[]> held = store.get(priceKey);
                        if (held != null && held.size() >= versions) {
                            ready++;
                            break;
                        }
                    } catch (InvalidStateStoreException notHere) {
                        // this partition is not on this instance, or not ready yet
                    }
                }
            }
            if (ready == partitions) {
                return;
            }
            Thread.sleep(100);
        }
        assertThat(ready).as("partitions whose price store holds every version").isEqualTo(partitions);
    }

}
