package dev.goodput.assembly;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import dev.goodput.bytes.ByteSink;
import dev.goodput.bytes.Varint;

/**
 * The ids of requests finished lately, so that an event of one that comes again is refused as a
 * duplicate. Kept in buckets of {@value #BUCKET_US} µs of completion time, one changelog record per
 * bucket changed at a commit rather than one per request, and dropped a bucket at a time once event
 * time has passed it.
 *
 * <p>A finished request's id is first <em>held</em> elsewhere: the adapter's journal entry (the streams-app's partial aggregates)
 * that adds its outcome carries it (the adapter's journal of partial aggregates), written by that request anyway, so
 * finishing a request writes no bucket. When the journal entry goes (its window sent), the id is
 * <em>released</em> into its bucket here, a bucket written once for all the ids it gains then. A
 * listener hears each id that leaves the set: the in-flight store may still hold its request's last
 * state under a slot ({@link InflightRequests#gone}).
 */
public final class FinishedRequests {

    public static final long BUCKET_US = 100_000L;

    /**
     * One bucket's ids, with their encoding appended as each is added: a bucket is written back at
     * every request it gains, and encoding every id again each time cost a share of the stream thread.
     */
    public static final class Bucket {
        public final List<String> ids = new ArrayList<>();
        private final ByteSink encoded = new ByteSink(256);

        void add(String id) {
            ids.add(id);
            Varint.writeString(encoded, id);
        }
    }

    public static final LiveStore.Codec<Bucket> CODEC = new LiveStore.Codec<>() {
        @Override
        public byte[] encode(Bucket b) {
            final ByteSink out = new ByteSink(8 + b.encoded.size());
            Varint.writeLong(out, b.ids.size());
            out.writeBytes(b.encoded);
            return out.toByteArray();
        }

        @Override
        public Bucket decode(byte[] bytes) {
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            final int n = (int) Varint.readLong(in);
            final Bucket b = new Bucket();
            for (int i = 0; i < n; i++) {
                b.add(Varint.readString(in));
            }
            return b;
        }
    };

    private final LiveStore<Bucket> buckets;
    private final Consumer<String> gone;
    private final Set<String> ids = new HashSet<>();
    /** The buckets kept, in time order: expiry looks only at the oldest (it runs every 100 ms of event time). */
    private final TreeSet<Long> order = new TreeSet<>();
    /** Buckets ending at or before this have expired: an id released into one of them goes at once. */
    private long expiredThroughUs = Long.MIN_VALUE;

    /**
     * Over a loaded store: the ids of every kept bucket are known at once.
     *
     * @param gone told each id that leaves the set (expired, or released into an expired bucket)
     */
    public FinishedRequests(LiveStore<Bucket> buckets, Consumer<String> gone) {
        this.buckets = buckets;
        this.gone = gone;
        buckets.entries().forEach((key, bucket) -> {
            ids.addAll(bucket.ids);
            order.add(Long.parseLong(key));
        });
    }

    public boolean contains(String id) {
        return ids.contains(id);
    }

    /** A finished request whose id a journal entry carries (the adapter's journal of partial aggregates): known, not stored here. */
    public void hold(String id) {
        ids.add(id);
    }

    /** A held id whose journal entry goes: into its bucket, or gone if that bucket has expired already. */
    public void release(String id, long completionUs) {
        if ((Math.floorDiv(completionUs, BUCKET_US) + 1) * BUCKET_US <= expiredThroughUs) {
            if (ids.remove(id)) {
                gone.accept(id);
            }
            return;
        }
        bucket(id, completionUs); // a held id is in the set already
    }

    /** Keeps {@code id} in the bucket of {@code completionUs}. */
    public void add(String id, long completionUs) {
        bucket(id, completionUs);
        ids.add(id);
    }

    private void bucket(String id, long completionUs) {
        final long index = Math.floorDiv(completionUs, BUCKET_US);
        final String key = Long.toString(index);
        final Bucket bucket = buckets.get(key);
        if (bucket == null) {
            final Bucket fresh = new Bucket();
            fresh.add(id);
            buckets.put(key, fresh);
            order.add(index);
        } else {
            bucket.add(id);
            buckets.touch(key);
        }
    }

    /** Drops the buckets that end at or before {@code beforeUs}. */
    public void expire(long beforeUs) {
        expiredThroughUs = Math.max(expiredThroughUs, beforeUs);
        while (!order.isEmpty() && (order.first() + 1) * BUCKET_US <= beforeUs) {
            final String key = Long.toString(order.pollFirst());
            for (String id : buckets.get(key).ids) {
                if (ids.remove(id)) {
                    gone.accept(id);
                }
            }
            buckets.remove(key);
        }
    }

    public int size() {
        return ids.size();
    }
}
