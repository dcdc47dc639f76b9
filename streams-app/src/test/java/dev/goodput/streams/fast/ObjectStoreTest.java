package dev.goodput.streams.fast;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/** What the object store writes to its changelogged inner store at a commit. */
class ObjectStoreTest {

    private static final ObjectStore.Codec<String> CODEC = new ObjectStore.Codec<>() {
        @Override
        public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** The inner store's writes, as the changelog would see them ("put k=v", "delete k"). */
    private final List<String> writes = new ArrayList<>();
    private final Map<Bytes, byte[]> data = new TreeMap<>();
    private final KeyValueStore<Bytes, byte[]> inner = inner("", writes, data);

    /** An inner store over {@code data} that logs each write to {@code writes}, prefixed with {@code name}. */
    @SuppressWarnings("unchecked")
    private static KeyValueStore<Bytes, byte[]> inner(String name, List<String> writes, Map<Bytes, byte[]> data) {
        return (KeyValueStore<Bytes, byte[]>) Proxy.newProxyInstance(
            ObjectStoreTest.class.getClassLoader(), new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "put" -> {
                        data.put((Bytes) args[0], (byte[]) args[1]);
                        writes.add(name + "put " + key(args[0]) + "=" + new String((byte[]) args[1], StandardCharsets.UTF_8));
                        return null;
                    }
                    case "delete" -> {
                        writes.add(name + "delete " + key(args[0]));
                        return data.remove((Bytes) args[0]);
                    }
                    case "get" -> {
                        return data.get((Bytes) args[0]);
                    }
                    case "flush", "commit", "close" -> {
                        return method.getReturnType() == boolean.class ? false : null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                }
            });
    }

    /** A store of its own whose writes go to {@link #writes}, prefixed with {@code name}. */
    private ObjectStore<String> store(String name) {
        return ObjectStore.over(inner(name, writes, new TreeMap<>()), CODEC);
    }

    private static String key(Object bytes) {
        return new String(((Bytes) bytes).get(), StandardCharsets.UTF_8);
    }

    @Test
    void entryAddedAndRemovedBetweenCommitsWritesNothing() {
        final ObjectStore<String> store = ObjectStore.over(inner, CODEC);
        store.put("a", "1");
        store.remove("a");
        store.flushCache();
        assertThat(writes).isEmpty();
        assertThat(store.size()).isZero();
    }

    @Test
    void persistedEntryRemovedLaterGetsATombstone() {
        final ObjectStore<String> store = ObjectStore.over(inner, CODEC);
        store.put("a", "1");
        store.put("b", "2");
        store.flushCache();
        assertThat(writes).containsExactly("put a=1", "put b=2");
        writes.clear();
        store.remove("a");
        store.put("c", "3");
        store.remove("c");
        store.flushCache();
        assertThat(writes).containsExactly("delete a");
        assertThat(data.keySet()).extracting(ObjectStoreTest::key).containsExactly("b");
    }

    @Test
    void onlyChangedEntriesAreRewritten() {
        final ObjectStore<String> store = ObjectStore.over(inner, CODEC);
        store.put("a", "1");
        store.put("b", "2");
        store.flushCache();
        writes.clear();
        store.put("b", "20");
        store.flushCache();
        assertThat(writes).containsExactly("put b=20");
    }

    @Test
    void theFirstStoreFlushedInACommitWritesEveryStoreItsThreadChanged() {
        final ObjectStore<String> a = store("a.");
        final ObjectStore<String> b = store("b.");
        final ObjectStore<String> c = store("c.");
        a.put("x", "1");
        b.put("y", "2");
        c.put("z", "3");
        b.flushCache();
        assertThat(writes).containsExactlyInAnyOrder("a.put x=1", "b.put y=2", "c.put z=3");
        writes.clear();
        a.flushCache();
        c.flushCache();
        assertThat(writes).isEmpty();
        // the next commit's changes are found again
        c.touch("z");
        a.flushCache();
        assertThat(writes).containsExactly("c.put z=3");
    }

    @Test
    void aStoreClosedBeforeTheCommitIsNotWrittenByAnother() {
        final ObjectStore<String> a = store("a.");
        final ObjectStore<String> b = store("b.");
        a.put("x", "1");
        b.put("y", "2");
        b.close();
        a.flushCache();
        assertThat(writes).containsExactly("a.put x=1");
    }

    @Test
    void storesChangedOnAnotherThreadAreLeftToTheirOwnCommit() throws Exception {
        final ObjectStore<String> a = store("a.");
        final ObjectStore<String> b = store("b.");
        final Thread other = new Thread(() -> b.put("y", "2"), "other-stream-thread");
        other.start();
        other.join();
        a.put("x", "1");
        a.flushCache();
        assertThat(writes).containsExactly("a.put x=1");
        b.flushCache();
        assertThat(writes).containsExactly("a.put x=1", "b.put y=2");
    }
}
