package dev.kmeta.producer.internal;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi.SenderRef;
import dev.kmeta.sender.KafkaMetadata;
import dev.kmeta.testkit.FakeBroker;

import java.util.Map;

/**
 * A {@link ProducerBridge} over a kmeta handle on a one-broker {@link FakeBroker} that has {@code topic} with
 * {@code partitions} partitions (kmeta has it when made), its network thread attached - a thread that never runs, so
 * every call from the test thread is a sending thread's. For the bridge's unit tests, which then call it as
 * KafkaProducer does. Not thread-safe; {@link #close} releases the bridge, the handle and the broker.
 */
final class BridgeOnFakeBroker implements AutoCloseable {
    final FakeBroker broker;
    final KafkaMetadata metadata;
    final ProducerBridge bridge;

    BridgeOnFakeBroker(String topic, int partitions, String clientId) {
        broker = FakeBroker.start(1);
        broker.createTopic(topic, partitions);
        metadata = KafkaMetadata.builder(Map.of("bootstrap.servers", broker.bootstrapServers())).build();
        bridge = new ProducerBridge(metadata, 300_000, 0, 60_000, "[test] ");
        Thread network = new Thread(() -> { }, "kafka-producer-network-thread | " + clientId);
        bridge.attach(new SenderRef(network, () -> true, () -> { }));
        metadata.awaitTopic(topic, 0, metadata.newSendDeadline());
    }

    @Override
    public void close() {
        bridge.close();
        broker.close();
    }
}
