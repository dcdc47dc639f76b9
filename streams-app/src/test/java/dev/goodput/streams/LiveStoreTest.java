package dev.goodput.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** What reaches the store: changed entries at each write-back, and a tombstone only for an entry the store holds. */
class LiveStoreTest {

    private static final LiveStore.Codec<String> TEXT = new LiveStore.Codec<>() {
        @Override
        public byte[] encode(String v) {
            return v.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
    };

    /** An in-memory store whose deletes are listed in {@code deletes}. */
    @SuppressWarnings("unchecked")
    private static KeyValueStore<String, byte[]> store(List<String> deletes) {
        final KeyValueStore<String, byte[]> s = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("s"),
                Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        s.init(new MockProcessorContext<>().getStateStoreContext(), s);
        return (KeyValueStore<String, byte[]>) Proxy.newProxyInstance(LiveStoreTest.class.getClassLoader(),
                new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("delete")) {
                        deletes.add((String) args[0]);
                    }
                    return method.invoke(s, args);
                });
    }

    @Test
    void writesChangesAndTombstonesOnlyWhatTheStoreHolds() {
        final List<String> deletes = new ArrayList<>();
        final KeyValueStore<String, byte[]> inner = store(deletes);
        final LiveStore<String> live = new LiveStore<>(inner, TEXT);
        live.load();
        live.put("a", "1");
        live.put("b", "2");
        live.writeBack();
        assertThat(new String(inner.get("a"), StandardCharsets.UTF_8)).isEqualTo("1");
        // came and went within one record: never written, so no tombstone
        live.put("c", "3");
        live.remove("c");
        live.remove("a");
        live.writeBack();
        assertThat(deletes).containsExactly("a");
        assertThat(inner.get("a")).isNull();
        assertThat(inner.get("c")).isNull();
        // written, removed, put again and removed again: one tombstone each time it was in the store
        live.put("a", "4");
        live.writeBack();
        live.remove("a");
        live.put("a", "5");
        live.writeBack();
        assertThat(new String(inner.get("a"), StandardCharsets.UTF_8)).isEqualTo("5");

        // after a restart, what the store held is removed with a tombstone
        final LiveStore<String> restarted = new LiveStore<>(inner, TEXT);
        restarted.load();
        assertThat(restarted.entries()).containsOnlyKeys("a", "b");
        restarted.remove("b");
        restarted.remove("a");
        restarted.writeBack();
        assertThat(deletes).hasSize(3).startsWith("a");
        assertThat(deletes.subList(1, 3)).containsExactlyInAnyOrder("a", "b");
        assertThat(inner.approximateNumEntries()).isZero();
    }
}
