package dev.goodput.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

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
    private static final class Listed implements ByteStore {
        final MemoryByteStore inner = new MemoryByteStore();
        final List<String> deletes;

        Listed(List<String> deletes) {
            this.deletes = deletes;
        }

        @Override
        public void put(String key, byte[] value) {
            inner.put(key, value);
        }

        @Override
        public void delete(String key) {
            deletes.add(key);
            inner.delete(key);
        }

        @Override
        public void forEach(BiConsumer<String, byte[]> entry) {
            inner.forEach(entry);
        }

        byte[] get(String key) {
            return inner.get(key);
        }

        int size() {
            return inner.size();
        }
    }

    @Test
    void writesChangesAndTombstonesOnlyWhatTheStoreHolds() {
        final List<String> deletes = new ArrayList<>();
        final Listed inner = new Listed(deletes);
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
        assertThat(inner.size()).isZero();
    }
}
