package dev.goodput.topics;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Record headers as a plain list, on Kafka's public {@link Headers} interface alone (its own
 * implementation lives in an internals package): what a refused record's DLQ headers are built in.
 */
public final class HeaderList implements Headers {

    private record Entry(String key, byte[] value) implements Header {
    }

    private final List<Header> headers = new ArrayList<>();

    @Override
    public Headers add(Header header) {
        headers.add(header);
        return this;
    }

    @Override
    public Headers add(String key, byte[] value) {
        return add(new Entry(key, value));
    }

    @Override
    public Headers remove(String key) {
        headers.removeIf(h -> h.key().equals(key));
        return this;
    }

    @Override
    public Header lastHeader(String key) {
        for (int i = headers.size() - 1; i >= 0; i--) {
            if (headers.get(i).key().equals(key)) {
                return headers.get(i);
            }
        }
        return null;
    }

    @Override
    public Iterable<Header> headers(String key) {
        return headers.stream().filter(h -> h.key().equals(key)).toList();
    }

    @Override
    public Header[] toArray() {
        return headers.toArray(new Header[0]);
    }

    @Override
    public Iterator<Header> iterator() {
        return headers.iterator();
    }
}
