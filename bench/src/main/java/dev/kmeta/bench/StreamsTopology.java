package dev.kmeta.bench;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;

/**
 * The Kafka Streams application the S8 harnesses measure ({@link StreamsMetadataHarness},
 * {@link StreamsLifecycleHarness}): the input grouped by value and counted (a repartition and a store), reduced by
 * key (a store), re-keyed out to {@code out-<name>}. Stateless.
 */
final class StreamsTopology {
    private StreamsTopology() {
    }

    /** The topology reading {@code input}; its stores and output topic are named after {@code name}. */
    static Topology build(String input, String name) {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> in = builder.stream(input);
        in.groupBy((k, v) -> v, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(Stores.inMemoryKeyValueStore("by-value-" + name)));
        in.groupByKey().reduce((a, b) -> b, Materialized.as(Stores.inMemoryKeyValueStore("last-" + name)));
        in.map((k, v) -> KeyValue.pair(v, k)).to("out-" + name);
        return builder.build();
    }
}
