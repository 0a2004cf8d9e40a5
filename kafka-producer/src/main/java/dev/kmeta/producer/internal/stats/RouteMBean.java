package dev.kmeta.producer.internal.stats;

import dev.kmeta.producer.internal.abi.KafkaClientsAbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.AttributeNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ObjectName;

/**
 * The KafkaProducer route of this JVM (of this class loader) in JMX, {@code dev.kmeta:type=kafka-producer-route,
 * kafka-clients=<version>}: {@code Fallbacks} (producers made stock because kafka-clients is not supported),
 * {@code KafkaClientsVersion}, {@code StandIn} (empty when unsupported) and {@code UnsupportedReason} (empty when
 * supported). Registered at the first {@code KmetaProducer.create}; a name already taken (another class loader with
 * the same kafka-clients) is left alone. A {@link ReadOnlyMBean}, so no interface of kmeta's needs exporting.
 *
 * <p>Thread-safe: every attribute is read from thread-safe state on each call.
 */
public final class RouteMBean extends ReadOnlyMBean {
    private static final Logger log = LoggerFactory.getLogger(RouteMBean.class);
    private static final AtomicBoolean REGISTERED = new AtomicBoolean();
    private static final String[] NAMES = {"Fallbacks", "KafkaClientsVersion", "StandIn", "UnsupportedReason"};

    private RouteMBean() {
    }

    /** Registers the route's MBean once; a failure is logged at DEBUG and never reaches the caller. */
    public static void registerOnce() {
        if (!REGISTERED.compareAndSet(false, true)) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(new RouteMBean(), name());
        } catch (JMException | RuntimeException e) {
            log.debug("kmeta's KafkaProducer route MBean not registered: {}", e.toString());
        }
    }

    /** The route's MBean name for the kafka-clients on the class path. */
    public static ObjectName name() throws JMException {
        String version = KafkaClientsAbi.kafkaClientsVersion();
        return new ObjectName("dev.kmeta:type=kafka-producer-route,kafka-clients="
                + ObjectName.quote(version == null ? "unknown" : version));
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        String reason = KafkaClientsAbi.unsupportedReason();
        switch (attribute) {
            case "Fallbacks":
                return Fallbacks.count();
            case "KafkaClientsVersion":
                String version = KafkaClientsAbi.kafkaClientsVersion();
                return version == null ? "unknown" : version;
            case "StandIn":
                return reason == null ? KafkaClientsAbi.current().standInClass() : "";
            case "UnsupportedReason":
                return reason == null ? "" : reason;
            default:
                throw new AttributeNotFoundException(attribute);
        }
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            attributes[i] = new MBeanAttributeInfo(NAMES[i], i == 0 ? "long" : String.class.getName(),
                    i == 0 ? "Producers made stock KafkaProducers because kafka-clients is not supported"
                            : NAMES[i], true, false, false);
        }
        return new MBeanInfo(RouteMBean.class.getName(), "kmeta's KafkaProducer route in this JVM", attributes,
                null, null, null);
    }
}
