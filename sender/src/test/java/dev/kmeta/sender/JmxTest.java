package dev.kmeta.sender;

import dev.kmeta.testkit.LogCapture;
import dev.kmeta.sender.internal.Handles;
import dev.kmeta.cluster.Cluster;
import dev.kmeta.cluster.PartitionMetadata;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.metadata.RefreshState;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MBean of each instance, read through the platform MBeanServer (as jconsole or a JMX exporter would) while a
 * real broker changes: its name, its life with the instance, and what its attributes say.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JmxTest {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.brokers(1);

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static Map<String, Object> props(String clientId) {
        Map<String, Object> p = ItSupport.fastProps(KAFKA.cluster().bootstrapServers());
        p.put("client.id", clientId);
        p.put("retry.backoff.ms", 50);
        return p;
    }

    private static ObjectName name(String clientId) throws Exception {
        return new ObjectName("dev.kmeta:type=metadata,client-id=" + clientId);
    }

    private static KafkaMetadataMXBean proxy(ObjectName name) {
        return JMX.newMXBeanProxy(SERVER, name, KafkaMetadataMXBean.class);
    }

    private static Set<ObjectName> namesOf(String clientId) throws Exception {
        return SERVER.queryNames(new ObjectName("dev.kmeta:type=metadata,client-id=" + clientId + ",*"), null);
    }

    @Test
    void registeredOnCreateUnderTheClientIdAndUnregisteredOnClose() throws Exception {
        ObjectName expected = name("jmx-create");
        KafkaMetadata m = KafkaMetadata.create(props("jmx-create"));
        try {
            assertEquals(expected, m.mbeanName());
            assertTrue(SERVER.isRegistered(expected));
            assertTrue(JMX.isMXBeanInterface(KafkaMetadataMXBean.class));
            assertEquals("jmx-create", SERVER.getAttribute(expected, "ClientId"));
            double age = (Double) SERVER.getAttribute(expected, "MetadataAgeSeconds");
            assertTrue(age >= 0 && age < 600, "seconds since start, never since the epoch: " + age);
            await().atMost(WAIT).until(() -> (Integer) SERVER.getAttribute(expected, "Version") >= 1);
            assertTrue((Long) SERVER.getAttribute(expected, "RequestsSent") > 0);
            assertTrue((Long) SERVER.getAttribute(expected, "ResponsesApplied") > 0);
            RefreshState.valueOf((String) SERVER.getAttribute(expected, "State"));
        } finally {
            m.close();
        }
        assertFalse(SERVER.isRegistered(expected), "unregistered on close");
    }

    /**
     * What jconsole and exporters show as an attribute's help: its unit and meaning, read from the MBeanInfo through
     * the platform MBeanServer (it used to be the attribute's name again); the bean works as an MXBean as before.
     */
    @Test
    void everyAttributeIsDescribedWithItsUnitAndMeaning() throws Exception {
        try (KafkaMetadata m = KafkaMetadata.create(props("jmx-described"))) {
            MBeanInfo info = SERVER.getMBeanInfo(m.mbeanName());
            assertTrue(info.getDescription().startsWith("kmeta: one client's metadata"), info.getDescription());
            Set<String> getters = new java.util.TreeSet<>();
            for (java.lang.reflect.Method method : KafkaMetadataMXBean.class.getMethods()) {
                if (method.getName().startsWith("get")) {
                    getters.add(method.getName().substring(3));
                }
            }
            Set<String> attributes = new java.util.TreeSet<>();
            for (MBeanAttributeInfo a : info.getAttributes()) {
                attributes.add(a.getName());
                String d = a.getDescription();
                assertNotEquals(a.getName(), d, "described, not named again");
                assertTrue(d.length() >= 30, a.getName() + ": " + d);
                if (!a.getType().equals("java.lang.String") && !a.getType().equals("[Ljava.lang.String;")) {
                    assertTrue(d.matches("^(seconds|ms|count)\\b.*"), "a number's description starts with its unit: "
                            + a.getName() + ": " + d);
                }
            }
            assertEquals(getters, attributes);
            assertTrue(describe(info, "MetadataAgeSeconds").startsWith("seconds (ms precision): since the last applied "
                    + "answer to a full metadata request"));
            assertTrue(describe(info, "WaitTimeTotalMs").startsWith("ms: "));
            assertTrue(describe(info, "RequestsSent").startsWith("count: "));
            assertTrue(describe(info, "TopicAgesSeconds").startsWith("seconds (ms precision), per subscribed topic"));

            MBeanOperationInfo op = java.util.Arrays.stream(info.getOperations())
                    .filter(o -> o.getName().equals("topicAgeSeconds")).findFirst().orElseThrow();
            assertTrue(op.getDescription().startsWith("seconds (ms precision): "), op.getDescription());
            assertEquals("topic", op.getSignature()[0].getName());
            assertEquals(-1.0, SERVER.invoke(m.mbeanName(), "topicAgeSeconds", new Object[] {"none"},
                    new String[] {String.class.getName()}));

            // still an MXBean: typed proxy, maps as TabularData
            assertTrue(proxy(m.mbeanName()).getVersion() >= 0);
            assertInstanceOf(javax.management.openmbean.TabularData.class,
                    SERVER.getAttribute(m.mbeanName(), "WaitTimeoutsByCause"));
        }
    }

    private static String describe(MBeanInfo info, String attribute) {
        return java.util.Arrays.stream(info.getAttributes()).filter(a -> a.getName().equals(attribute)).findFirst()
                .orElseThrow().getDescription();
    }

    @Test
    void attributesFollowTheClusterAsItChanges() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("jmx-grow", 1, 1);
        try (KafkaMetadata m = KafkaMetadata.create(props("jmx-grow"))) {
            KafkaMetadataMXBean bean = proxy(m.mbeanName());
            await().atMost(WAIT).until(() -> bean.getVersion() >= 1);
            assertEquals(0, bean.getSubscribedTopics());
            assertEquals(-1.0, bean.topicAgeSeconds("jmx-grow"));

            m.awaitTopic("jmx-grow", m.newDeadline(Duration.ofSeconds(10)));
            int v1 = bean.getVersion();
            assertEquals(1, bean.getSubscribedTopics());
            assertEquals(Set.of("jmx-grow"), bean.getTopicAgesSeconds().keySet());

            // Partitions added: the wait for the new partition refreshes the topic (a partial request), so its age
            // starts again and the version grows, while the metadata age (full refreshes only) goes on.
            double topicAgeBefore = awaitAgeOver(() -> bean.topicAgeSeconds("jmx-grow"));
            double metadataAgeBefore = bean.getMetadataAgeSeconds();
            cluster.addPartitions("jmx-grow", 3);
            Cluster c = m.awaitTopic("jmx-grow", 2, m.newDeadline(Duration.ofSeconds(10)));
            assertEquals(3, c.partitionCount("jmx-grow"));
            assertTrue(bean.getVersion() > v1, "version grew");
            assertTrue(bean.topicAgeSeconds("jmx-grow") < topicAgeBefore, "topic age reset");
            assertTrue(bean.getMetadataAgeSeconds() >= metadataAgeBefore, "a partial answer is no full refresh");

            // A full refresh resets the metadata age (kafka-clients' metadata-age) and every topic's age.
            double metadataAgeNow = awaitAgeOver(bean::getMetadataAgeSeconds);
            int v2 = m.requestUpdate();
            m.awaitUpdate(v2, m.newDeadline(Duration.ofSeconds(10)));
            assertTrue(bean.getMetadataAgeSeconds() < metadataAgeNow, "metadata age reset by the full refresh");
            assertTrue(bean.getVersion() > v2);

            cluster.createTopic("jmx-new", 2, 1);
            m.awaitTopic("jmx-new", m.newDeadline(Duration.ofSeconds(10)));
            assertEquals(2, bean.getSubscribedTopics());
            assertEquals(Set.of("jmx-grow", "jmx-new"), bean.getTopicAgesSeconds().keySet());

            assertTrue(bean.getRequestsSent() >= 4, "first, partition, full, new topic: " + bean.getRequestsSent());
            assertTrue(bean.getResponsesApplied() >= 4);
            assertTrue(bean.getRequestLatencyMaxMs() >= bean.getRequestLatencyAvgMs());
            assertTrue(bean.getRequestLatencyAvgMs() >= 0);
            assertEquals(0, bean.getRebootstraps());
            assertEquals(m.stats().rebootstraps(), bean.getRebootstraps());
            assertEquals(0, bean.getMisroutedConnections());
            assertEquals(0, bean.getBootstrapResolveTimeouts());
        }
    }

    /** Waits (bounded) until an age passed 0.2 s, and returns the last value read. */
    private static double awaitAgeOver(java.util.function.DoubleSupplier age) {
        double[] last = new double[1];
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> (last[0] = age.getAsDouble()) > 0.2);
        return last[0];
    }

    @Test
    void aTimedOutWaitIsCountedUnderItsCauseAndWaitersAreSeenWaiting() throws Exception {
        try (KafkaMetadata m = KafkaMetadata.create(props("jmx-timeout"))) {
            KafkaMetadataMXBean bean = proxy(m.mbeanName());
            CompletableFuture<Cluster> wait = ItSupport.onNewThread("jmx-missing",
                    () -> m.awaitTopic("jmx-missing", m.newDeadline(Duration.ofSeconds(2))));
            await().atMost(WAIT).until(() -> bean.getWaitersNow() == 1 || wait.isDone());
            assertFalse(wait.isDone(), "still waiting while seen");
            assertEquals(1, bean.getSubscribedTopics(), "a missing topic waited for is subscribed");

            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> wait.get(20, TimeUnit.SECONDS));
            KafkaMetadataTimeoutException timeout = assertInstanceOf(KafkaMetadataTimeoutException.class, e.getCause());
            assertEquals(Diagnosis.Cause.TOPIC_NOT_FOUND, timeout.diagnosis().cause());
            await().atMost(WAIT).until(() -> bean.getWaitersNow() == 0);

            Map<String, Long> byCause = bean.getWaitTimeoutsByCause();
            assertEquals(1L, byCause.get("TOPIC_NOT_FOUND"));
            for (Diagnosis.Cause other : EnumSet.complementOf(EnumSet.of(Diagnosis.Cause.TOPIC_NOT_FOUND))) {
                assertEquals(0L, byCause.get(other.name()), other.name());
            }
            assertEquals(1, bean.getWaitTimeouts());
            long waitedMs = bean.getWaitTimeTotalMs();
            assertTrue(waitedMs >= 1_000, "the 2 s wait is in the total: " + waitedMs);
        }
    }

    /**
     * KIP-909's count on the MBean: every bootstrap name failing to resolve (a fake name through the resolver hook,
     * never the system resolver) for {@code bootstrap.resolve.timeout.ms} is one BootstrapResolveTimeouts, as in
     * the stats. No broker: nothing connects.
     */
    @Test
    void aBootstrapResolveTimeoutIsCounted() throws Exception {
        Map<String, Object> p = ItSupport.fastProps("kafka.unresolvable.test:1");
        p.put("client.id", "jmx-dns");
        p.put("bootstrap.resolve.timeout.ms", 200);
        HostResolverHook noName = host -> {
            throw new java.net.UnknownHostException(host);
        };
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta"); // its ERROR line is expected: captured, asserted
             KafkaMetadata m = KafkaMetadata.builder(p).hostResolver(noName).build()) {
            KafkaMetadataMXBean bean = proxy(m.mbeanName());
            await().atMost(WAIT).until(() -> m.bootstrapResolutionFailure() != null);
            await().atMost(WAIT).until(() -> logs.text().contains("ERROR dev.kmeta.sender.internal."
                    + "BootstrapResolutionWatch - [jmx-dns] no name of bootstrap.servers=[kafka.unresolvable.test:1]"));
            assertEquals(1, bean.getBootstrapResolveTimeouts());
            assertEquals(m.stats().bootstrapResolveTimeouts(), bean.getBootstrapResolveTimeouts());
            assertEquals(1L, SERVER.getAttribute(m.mbeanName(), "BootstrapResolveTimeouts"));
            assertEquals(0, bean.getMisroutedConnections(), "no broker refused anything");
        }
    }

    @Test
    void leaderHintsAndStaleEpochsAreCounted() throws Exception {
        KafkaCluster cluster = KAFKA.cluster();
        cluster.createTopic("jmx-hint", 1, 1);
        try (KafkaMetadata m = KafkaMetadata.create(props("jmx-hint"))) {
            KafkaMetadataMXBean bean = proxy(m.mbeanName());
            PartitionMetadata p = m.awaitTopic("jmx-hint", 0, m.newDeadline(Duration.ofSeconds(10))).partition("jmx-hint", 0);
            assertEquals(0, bean.getLeaderHintsApplied());

            m.onLeaderHint("jmx-hint", 0, p.leaderId(), p.leaderEpoch() + 1, null);
            await().atMost(WAIT).until(() -> bean.getLeaderHintsApplied() == 1);

            // The broker still says the older epoch: the next answer's partition is rejected as stale (KIP-320).
            assertEquals(0, bean.getStaleEpochsRejected());
            int v = m.requestUpdate();
            m.awaitUpdate(v, m.newDeadline(Duration.ofSeconds(10)));
            assertTrue(bean.getStaleEpochsRejected() >= 1, "stale epochs: " + bean.getStaleEpochsRejected());
        }
    }

    @Test
    void aSharedInstanceIsRegisteredOnceAndLeavesWithItsLastHandle() throws Exception {
        Map<String, Object> props = props("jmx-shared");
        KafkaMetadata first = KafkaMetadata.shared(props);
        KafkaMetadata second = KafkaMetadata.shared(props);
        try {
            assertTrue(Handles.sameInstance(first, second));
            assertEquals(Set.of(name("jmx-shared")), namesOf("jmx-shared"), "one MBean for both handles");
            assertEquals(first.mbeanName(), second.mbeanName());
            first.close();
            assertTrue(SERVER.isRegistered(name("jmx-shared")), "a handle is still open");
        } finally {
            first.close();
            second.close();
        }
        assertTrue(namesOf("jmx-shared").isEmpty(), "unregistered with the last handle");
    }

    @Test
    void theSameClientIdTwiceDoesNotFailAndGetsItsOwnName() throws Exception {
        KafkaMetadata a;
        KafkaMetadata b;
        String warnings;
        try (LogCapture logs = LogCapture.at("warn", "dev.kmeta")) {
            a = KafkaMetadata.create(props("jmx-twin"));
            b = KafkaMetadata.create(props("jmx-twin"));
            warnings = logs.text();
        }
        try {
            assertEquals(name("jmx-twin"), a.mbeanName());
            assertEquals(new ObjectName("dev.kmeta:type=metadata,client-id=jmx-twin,instance=2"), b.mbeanName());
            assertTrue(warnings.contains("already uses this client.id") && warnings.contains("instance=2"), warnings);
            assertEquals(Set.of(a.mbeanName(), b.mbeanName()), namesOf("jmx-twin"));
            a.close();
            assertEquals(Set.of(b.mbeanName()), namesOf("jmx-twin"), "closing one removes only its own name");
            try (KafkaMetadata c = KafkaMetadata.create(props("jmx-twin"))) {
                assertEquals(name("jmx-twin"), c.mbeanName(), "the plain name is free again");
            }
        } finally {
            a.close();
            b.close();
        }
        assertTrue(namesOf("jmx-twin").isEmpty());
    }

    @Test
    void aClientIdWithSpecialCharactersIsQuoted() throws Exception {
        String id = "app,env=prod:\"eu\"*?";
        try (KafkaMetadata m = KafkaMetadata.create(props(id))) {
            ObjectName n = m.mbeanName();
            assertFalse(n.isPattern(), n.toString());
            assertEquals(id, ObjectName.unquote(n.getKeyProperty("client-id")));
            assertEquals("metadata", n.getKeyProperty("type"));
            assertEquals(id, SERVER.getAttribute(n, "ClientId"));
            assertEquals(new ObjectName("dev.kmeta:type=metadata,client-id=" + ObjectName.quote(id)), n);
        }
    }

    @Test
    void aDrivenInstanceIsRegisteredToo() throws Exception {
        KafkaMetadata m = KafkaMetadata.driven(props("jmx-driven"));
        try {
            assertTrue(SERVER.isRegistered(name("jmx-driven")));
            assertEquals(0, proxy(name("jmx-driven")).getRequestsSent(), "no client attached, nothing sent");
        } finally {
            m.close();
        }
        assertFalse(SERVER.isRegistered(name("jmx-driven")));
    }
}
