package dev.kmeta.producer.internal.stats;

import dev.kmeta.producer.RouteStats.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ObjectName;

/**
 * One kmeta instance's route counts in JMX, {@code dev.kmeta:type=kafka-producer-route-stats,client-id=<id>} (a
 * second instance with the same client id: {@code ,instance=<n>}), beside the instance's own
 * {@code dev.kmeta:type=metadata,client-id=<id>}: one {@code long} attribute per {@code RouteStats.Counter}.
 * Registered with the instance's first producer, unregistered with its last. A {@link ReadOnlyMBean}, so no interface
 * of kmeta's needs exporting; JMX is never a reason to fail (a failure is logged at DEBUG).
 *
 * <p>Thread-safe: each read asks the instance's entry for its counts now.
 */
final class RouteStatsMBean extends ReadOnlyMBean {
    private static final Logger log = LoggerFactory.getLogger(RouteStatsMBean.class);
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._-]+");
    private static final int MAX_INSTANCES = 10_000;

    private final RouteInstances.Route route;

    private RouteStatsMBean(RouteInstances.Route route) {
        this.route = route;
    }

    /** The name for {@code clientId}; {@code instance} 1 is the plain name. */
    static ObjectName nameFor(String clientId, int instance) throws JMException {
        String id = clientId == null || clientId.isEmpty() ? "unnamed" : clientId;
        return new ObjectName("dev.kmeta:type=kafka-producer-route-stats,client-id="
                + (PLAIN.matcher(id).matches() ? id : ObjectName.quote(id)) + (instance > 1 ? ",instance=" + instance : ""));
    }

    static synchronized void register(RouteInstances.Route route) {
        if (route.mbean != null) {
            return;
        }
        try {
            for (int n = 1; n <= MAX_INSTANCES; n++) {
                ObjectName name = nameFor(route.clientId, n);
                try {
                    ManagementFactory.getPlatformMBeanServer().registerMBean(new RouteStatsMBean(route), name);
                    route.mbean = name;
                    return;
                } catch (InstanceAlreadyExistsException taken) {
                    // the next instance number
                }
            }
        } catch (JMException | RuntimeException e) {
            log.debug("[{}] route stats MBean not registered: {}", route.clientId, e.toString());
        }
    }

    static synchronized void unregister(RouteInstances.Route route) {
        ObjectName name = route.mbean;
        route.mbean = null;
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            log.debug("[{}] route stats MBean {} not unregistered: {}", route.clientId, name, e.toString());
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        for (Counter c : Counter.values()) {
            if (c.attribute().equals(attribute)) {
                return route.counts()[c.ordinal()];
            }
        }
        throw new AttributeNotFoundException(attribute);
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        long[] counts = route.counts();
        AttributeList out = new AttributeList();
        for (String a : attributes) {
            for (Counter c : Counter.values()) {
                if (c.attribute().equals(a)) {
                    out.add(new Attribute(a, counts[c.ordinal()]));
                }
            }
        }
        return out;
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        Counter[] counters = Counter.values();
        MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[counters.length];
        for (int i = 0; i < counters.length; i++) {
            attributes[i] = new MBeanAttributeInfo(counters[i].attribute(), "long", counters[i].description(), true,
                    false, false);
        }
        return new MBeanInfo(RouteStatsMBean.class.getName(), "kmeta's KafkaProducer route, one instance's counts",
                attributes, null, null, null);
    }
}
