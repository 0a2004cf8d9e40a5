package dev.kmeta.sender;

import dev.kmeta.metadata.ConnectionEvidence;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.metadata.Diagnosis;
import dev.kmeta.testkit.FaultProxy;
import dev.kmeta.testkit.KafkaCluster;
import dev.kmeta.testkit.KafkaClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.management.JMX;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * KIP-1242 against real 4.4 brokers: kmeta sends the cluster id and node id it knows with ApiVersions (v5) when it
 * connects to a learned broker; a broker that is not that node of that cluster answers {@code REBOOTSTRAP_REQUIRED}
 * (the 4.4 broker checks whenever the request carries a cluster id: there is no broker setting). Cluster A's brokers
 * advertise FaultProxies; a proxy retargeted to cluster B's broker, or to A's other broker, is a DNS name or load
 * balancer now pointing at the wrong place. kmeta rebootstraps, counts it, marks the address MISROUTED, diagnoses
 * MISROUTED_CONNECTION, and recovers once the address is right again.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MisroutedConnectionTest {
    @RegisterExtension
    static final KafkaClusterExtension A = KafkaClusterExtension.of(KafkaCluster.builder().brokers(2).withProxies());
    @RegisterExtension
    static final KafkaClusterExtension B = KafkaClusterExtension.brokers(1);

    /** The bootstrap address: a proxy of its own in front of A's other broker, so that a test can cut it too. */
    private FaultProxy boot;

    @AfterEach
    void heal() {
        KafkaCluster a = A.cluster();
        for (int id : a.brokerIds()) {
            InetSocketAddress direct = a.brokerAddress(id);
            a.proxy(id).retarget(direct.getHostString(), direct.getPort()).pass();
        }
        if (boot != null) {
            boot.close();
        }
    }

    private static Map<String, Object> props(String bootstrap) {
        Map<String, Object> p = ItSupport.fastProps(bootstrap);
        // Only a refusal rebootstraps within a test: the trigger is far away.
        p.put("metadata.recovery.rebootstrap.trigger.ms", 120_000);
        return p;
    }

    /** A broker of A other than {@code id}. */
    private static int other(int id) {
        return A.cluster().brokerIds().stream().filter(b -> b != id).findFirst().orElseThrow();
    }

    /** Waits until kmeta has been connected to the broker through its (advertised) proxy. */
    private static void awaitConnected(KafkaMetadata m, int id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            ConnectionEvidence.Record r = m.evidence().get(String.valueOf(id));
            return r != null && r.everConnected();
        });
    }

    private static void awaitMisrouted(KafkaMetadata m, String topic, int partition, long refusalsBefore) {
        await().atMost(Duration.ofSeconds(30)).until(() -> m.stats().misroutedConnections() > refusalsBefore);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Diagnosis d = m.diagnose(topic, partition);
            return d != null && d.cause() == Diagnosis.Cause.MISROUTED_CONNECTION;
        });
    }

    @Test
    void aBrokersAddressNowLeadingToAnotherClusterIsRefusedAndAWaitingSendSaysMisrouted() {
        KafkaCluster a = A.cluster();
        a.createTopic("misrouted-b", 2, 1);
        int victim = a.leader("misrouted-b", 0);
        int survivor = other(victim);
        InetSocketAddress bBroker = B.cluster().brokerAddress(B.cluster().brokerIds().get(0));
        boot = FaultProxy.to(a.brokerAddress(survivor));
        try (KafkaMetadata m = KafkaMetadata.builder(props(boot.address())).build()) {
            assertEquals(victim, m.awaitLeader("misrouted-b", 0, m.newDeadline(Duration.ofSeconds(30))).id());
            awaitConnected(m, victim);
            assertEquals(0, m.stats().misroutedConnections());
            long rebootstrapsBefore = m.stats().rebootstraps();
            a.createTopic("unseen-b", 1, 1); // on A; kmeta has not asked for it yet

            // The victim's address now leads to cluster B's broker (a DNS or load balancer change).
            a.proxy(victim).retarget(bBroker.getHostString(), bBroker.getPort()).resetAll();
            awaitMisrouted(m, "misrouted-b", 0, 0);
            assertTrue(m.stats().rebootstraps() > rebootstrapsBefore, "each refusal rebootstraps: " + m.stats());
            long refusals = m.stats().misroutedConnections();
            long onTheMBean = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), m.mbeanName(),
                    KafkaMetadataMXBean.class).getMisroutedConnections();
            assertTrue(onTheMBean >= refusals, "the MBean counts them too: " + onTheMBean + " < " + refusals);
            ConnectionEvidence.Record r = m.evidence().get(String.valueOf(victim));
            assertTrue(r.lastDetail() == null || r.lastDetail().contains("REBOOTSTRAP_REQUIRED"), r.toString());
            assertEquals(a.clusterId(), m.fetch().clusterId(), "still cluster A: the bootstrap leads there");

            // Every other address goes dark too: a send waiting for a topic kmeta does not know yet times out, and
            // says why - the victim's address leads elsewhere (kmeta keeps probing it: it leads partitions).
            boot.refuse().resetAll();
            a.proxy(survivor).refuse().resetAll();
            KafkaMetadataTimeoutException e = assertThrows(KafkaMetadataTimeoutException.class,
                    () -> m.awaitTopic("unseen-b", m.newDeadline(Duration.ofSeconds(3))));
            assertEquals(Diagnosis.Cause.MISROUTED_CONNECTION, e.diagnosis().cause(), e.getMessage());
            ItSupport.report("other cluster: %s; %s", e.getMessage(), m.stats());
            assertTrue(e.getMessage().contains("broker " + victim + "'s address " + a.proxy(victim).address()
                    + " leads to another broker"), e.getMessage());

            // The addresses are right again: kmeta recovers on its own.
            boot.pass();
            a.proxy(survivor).pass();
            InetSocketAddress direct = a.brokerAddress(victim);
            a.proxy(victim).retarget(direct.getHostString(), direct.getPort());
            assertEquals(1, m.awaitTopic("unseen-b", m.newDeadline(Duration.ofSeconds(30))).partitionCount("unseen-b"));
            await().atMost(Duration.ofSeconds(30)).until(() -> m.diagnose("misrouted-b", 0) == null);
        }
    }

    @Test
    void withTheCheckTurnedOffKmetaSendsNoIdentityAndTheWrongNodeIsNotRefused() {
        KafkaCluster a = A.cluster();
        a.createTopic("unchecked", 2, 1);
        int victim = a.leader("unchecked", 0);
        int survivor = other(victim);
        boot = FaultProxy.to(a.brokerAddress(survivor));
        Map<String, Object> props = props(boot.address());
        props.put("metadata.cluster.check.enable", false);
        try (KafkaMetadata m = KafkaMetadata.builder(props).build()) {
            assertEquals(victim, m.awaitLeader("unchecked", 0, m.newDeadline(Duration.ofSeconds(30))).id());
            awaitConnected(m, victim);
            ConnectionEvidence.Record r = m.evidence().get(String.valueOf(victim));
            long connectedBefore = r.lastConnectedMs();

            InetSocketAddress wrongNode = a.brokerAddress(survivor);
            a.proxy(victim).retarget(wrongNode.getHostString(), wrongNode.getPort()).resetAll();
            // kmeta reconnects to the victim's address (it leads a partition) and, sending no identity, is let in
            await().atMost(Duration.ofSeconds(30)).until(() -> r.lastConnectedMs() > connectedBefore
                    && !r.failingNow());
            assertEquals(0, m.stats().misroutedConnections(), m.stats().toString());
            assertNull(m.diagnose("unchecked", 0), "nothing speaks against the wrong node");
        }
    }

    @Test
    void aBrokersAddressNowLeadingToAnotherNodeOfTheSameClusterIsRefusedToo() {
        KafkaCluster a = A.cluster();
        a.createTopic("misrouted-a", 2, 1);
        int victim = a.leader("misrouted-a", 0);
        int survivor = other(victim);
        boot = FaultProxy.to(a.brokerAddress(survivor));
        try (KafkaMetadata m = KafkaMetadata.builder(props(boot.address())).build()) {
            assertEquals(victim, m.awaitLeader("misrouted-a", 0, m.newDeadline(Duration.ofSeconds(30))).id());
            awaitConnected(m, victim);
            long rebootstrapsBefore = m.stats().rebootstraps();

            // The victim's address now leads to the other broker of the same cluster: same cluster id, wrong node.
            InetSocketAddress wrongNode = a.brokerAddress(survivor);
            a.proxy(victim).retarget(wrongNode.getHostString(), wrongNode.getPort()).resetAll();
            awaitMisrouted(m, "misrouted-a", 0, 0);
            assertTrue(m.stats().rebootstraps() > rebootstrapsBefore, m.stats().toString());
            ItSupport.report("other node: %s; %s", m.diagnose("misrouted-a", 0).message(), m.stats());
            if (a.leader("misrouted-a", 1) == survivor) {
                await().atMost(Duration.ofSeconds(30)).until(() -> m.diagnose("misrouted-a", 1) == null);
            }

            // Metadata still flows (the bootstrap and the survivor answer): a new topic is found meanwhile.
            a.createTopic("meanwhile-a", 1, 1);
            assertEquals(1, m.awaitTopic("meanwhile-a", m.newDeadline(Duration.ofSeconds(30))).partitionCount("meanwhile-a"));

            InetSocketAddress direct = a.brokerAddress(victim);
            a.proxy(victim).retarget(direct.getHostString(), direct.getPort());
            await().atMost(Duration.ofSeconds(30)).until(() -> m.diagnose("misrouted-a", 0) == null);
        }
    }
}
