/**
 * kmeta's Micrometer binding: {@code KmetaMetrics}, a {@code MeterBinder} for one kmeta instance's stats. Micrometer
 * is the application's (the automatic module {@code micrometer.core}), read transitively because the binder's API
 * names its types.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module kmeta.micrometer {
    requires transitive kmeta.sender;
    requires transitive micrometer.core;

    exports dev.kmeta.micrometer;
}
