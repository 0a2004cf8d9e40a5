/**
 * kmeta's Micrometer binding: {@code KmetaMetrics}, a {@code MeterBinder} for one kmeta instance's stats, and
 * {@code KmetaRouteMetrics} for its KafkaProducer route's counts (kmeta-kafka-producer optional). Micrometer
 * is the application's (the automatic module {@code micrometer.core}), read transitively because the binder's API
 * names its types.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module kmeta.micrometer {
    requires transitive kmeta.sender;
    requires transitive micrometer.core;
    requires static kmeta.producer;

    exports dev.kmeta.micrometer;
}
