/**
 * The streams-app's speed machinery, kept apart because each piece leans on how Kafka Streams
 * behaves rather than only on its public API, and each has a guard that fails when that changes
 * (the argument for each is in docs/architecture.md, "The speed machinery"):
 * <ul>
 *   <li>{@link dev.goodput.streams.fast.CoalescingConsumer} hands token records to Kafka Streams in
 *       frames of up to 64 ({@link dev.goodput.streams.fast.TokenBatch}); its exactly-once argument
 *       rests on the task committing the offset after the frame's last record;</li>
 *   <li>{@link dev.goodput.streams.fast.FastTokenReader} reads a token event in place when its writer
 *       schema is this build's;</li>
 *   <li>{@link dev.goodput.streams.fast.ObjectStore} keeps live objects over a changelogged store,
 *       written back at each commit (it implements Kafka Streams' internal {@code CachedStateStore}
 *       so the commit flushes it), with {@link dev.goodput.serde.Varint} and
 *       {@link dev.goodput.serde.ByteSink} for its codecs.</li>
 * </ul>
 */
package dev.goodput.streams.fast;
