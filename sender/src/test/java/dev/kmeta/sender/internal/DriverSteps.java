package dev.kmeta.sender.internal;

import dev.kmeta.testkit.FakeKafkaClient;

import java.util.function.BooleanSupplier;

/** The sender loop ({@link SenderLoop#run}) on a {@link FakeKafkaClient}'s fake time, for the driver's unit tests. */
final class DriverSteps {
    private DriverSteps() {
    }

    /** Steps {@code driver} and polls {@code client} until {@code done} or {@code fakeMs} of fake time have passed. */
    static void runUntil(FakeKafkaClient client, MetadataDriver driver, BooleanSupplier done, long fakeMs) {
        long endMs = client.nowMs() + fakeMs;
        for (int i = 0; i < 1_000_000 && !done.getAsBoolean() && client.nowMs() < endMs; i++) {
            client.poll(driver.step(client.nowMs()), client.nowMs());
        }
    }
}
