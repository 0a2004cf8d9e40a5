package dev.kmeta.sender.internal;

import dev.kmeta.sender.KafkaMetadataMXBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.regex.Pattern;

/**
 * Registers instances' MBeans on the platform MBeanServer as {@code dev.kmeta:type=metadata,client-id=<id>}.
 *
 * <p>Two instances with the same client id: the first takes that name, the next ones
 * {@code dev.kmeta:type=metadata,client-id=<id>,instance=<n>} (the lowest free {@code n} from 2), with one warning
 * each. Unlike kafka-clients (whose second instance's app-info MBean is skipped, and whose first close then
 * unregisters the name the other still uses), every instance stays visible and each removes only its own name.
 * JMX is never a reason to fail: a registration that fails for another reason is logged and the instance runs
 * without an MBean.
 *
 * <p>Thread-safe (the MBeanServer is).
 */
final class MetadataMBeans {
    private static final Logger log = LoggerFactory.getLogger(MetadataMBeans.class);
    static final String DOMAIN = "dev.kmeta";
    private static final int MAX_INSTANCES = 10_000;
    /** Values made only of these need no quoting; anything else (',', '=', ':', '"', '*', '?', ...) is quoted. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._-]+");

    private MetadataMBeans() {
    }

    /** The name for {@code clientId}; {@code instance} 1 is the plain name, others add {@code instance=<n>}. */
    static ObjectName nameFor(String clientId, int instance) throws MalformedObjectNameException {
        String value = PLAIN.matcher(clientId).matches() ? clientId : ObjectName.quote(clientId);
        return new ObjectName(DOMAIN + ":type=metadata,client-id=" + value
                + (instance > 1 ? ",instance=" + instance : ""));
    }

    /**
     * Registers {@code bean} (as a {@link DescribedMetadataMBean}: its attributes described with unit and meaning);
     * returns the name it got, or null (logged) if it could not be registered.
     */
    static ObjectName register(String clientId, KafkaMetadataMXBean bean) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            Object mbean = new DescribedMetadataMBean(bean);
            for (int instance = 1; instance <= MAX_INSTANCES; instance++) {
                ObjectName name = nameFor(clientId, instance);
                try {
                    server.registerMBean(mbean, name);
                    if (instance > 1) {
                        log.warn("[{}] another kmeta instance in this JVM already uses this client.id: this one's "
                                + "MBean is {} (give each instance its own client.id)", clientId, name);
                    }
                    return name;
                } catch (InstanceAlreadyExistsException taken) {
                    // try the next instance number
                }
            }
            log.warn("[{}] no free MBean name after {} instances with this client.id; running without an MBean",
                    clientId, MAX_INSTANCES);
        } catch (JMException | RuntimeException e) {
            log.warn("[{}] could not register the metadata MBean; running without it: {}", clientId, e.toString());
        }
        return null;
    }

    /** Unregisters {@code name} (null: nothing to do); never throws. */
    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (InstanceNotFoundException gone) {
            log.debug("MBean {} was already unregistered", name);
        } catch (JMException | RuntimeException e) {
            log.warn("could not unregister the metadata MBean {}: {}", name, e.toString());
        }
    }
}
