package dev.kmeta.testkit;

import java.io.IOException;
import java.net.BindException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static dev.kmeta.testkit.KafkaCluster.CLIENT_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.CONTROLLER_LISTENER;
import static dev.kmeta.testkit.KafkaCluster.INTERNAL_LISTENER;

/**
 * How a {@link KafkaCluster} tells a port taken between its pick and the bind from other start failures: which of a
 * node's listener ports cannot be bound now, whether a failure's chain shows a bind failure or a Kafka halt, and the
 * message that names the taken ports. Stateless; thread-safe.
 */
final class PortRace {
    private PortRace() {
    }

    /** The node's listener ports that cannot be bound now, each as a BindException naming it. */
    static List<BindException> takenPorts(KafkaNode node, Map<String, Integer> ports) {
        List<BindException> taken = new ArrayList<>();
        ports.forEach((listener, port) -> {
            IOException failure = FreePorts.bindFailure(port);
            if (failure instanceof BindException) {
                BindException named = new BindException("port " + port + " (" + listener + " listener of node "
                        + node.id + ") was taken: " + failure.getMessage());
                named.initCause(failure);
                taken.add(named);
            }
        });
        return taken;
    }

    /**
     * The evidence of its ports for a node's failed start (the node is stopped by now). Kafka's controller reports a
     * failed bind to a fault handler, which logs it and halts ({@link KafkaExit.Called}, without the cause), and a
     * broker buries it a few causes deep. So each of the node's ports is bound once: if a port is taken, or the start
     * halted, the result wraps the failure in one that says so in its message, with each taken port attached as a
     * suppressed {@link BindException} naming it; otherwise it is null (rethrow the failure as it is).
     */
    static IllegalStateException explained(KafkaNode node, int controllerPort, Throwable failure) {
        Map<String, Integer> ports = portsOf(node, controllerPort);
        List<BindException> taken = takenPorts(node, ports);
        if (taken.isEmpty() && !anyInChain(failure, t -> t instanceof KafkaExit.Called)) {
            return null;
        }
        IllegalStateException explained = new IllegalStateException(explanation(node, ports, taken), failure);
        taken.forEach(explained::addSuppressed);
        return explained;
    }

    /** The message of a failed start that a taken port, or a halt, may explain. */
    static String explanation(KafkaNode node, Map<String, Integer> ports, List<BindException> taken) {
        if (taken.isEmpty()) {
            return "node " + node.id + " did not start: Kafka called Exit during its start, and none of its ports "
                    + ports + " is taken now (taken for a moment only, or another fault: see the log)";
        }
        return "node " + node.id + " did not start: " + taken.stream().map(Throwable::getMessage)
                .collect(Collectors.joining("; "));
    }

    /** The ports the node's listeners are configured with, by listener name. */
    static Map<String, Integer> portsOf(KafkaNode node, int controllerPort) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        if (node.role.isBroker()) {
            ports.put(CLIENT_LISTENER, node.clientPort);
            ports.put(INTERNAL_LISTENER, node.internalPort);
        }
        if (node.role != KafkaNode.Role.BROKER) {
            ports.put(CONTROLLER_LISTENER, controllerPort);
        }
        return ports;
    }

    /**
     * Whether a start failure may come from a port taken between its pick and the bind, so that a start on new
     * ports may succeed: a bind failure, or Kafka halting during the start (how its controller reports one).
     */
    static boolean mayBePortRace(Throwable failure) {
        return anyInChain(failure, t -> t instanceof BindException || t instanceof KafkaExit.Called
                || String.valueOf(t.getMessage()).contains("Address already in use"));
    }

    /** Whether the throwable, one of its causes or of their suppressed throwables matches. */
    static boolean anyInChain(Throwable top, Predicate<Throwable> test) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>(List.of(top));
        while (!pending.isEmpty()) {
            Throwable t = pending.pop();
            if (!seen.add(t)) {
                continue;
            }
            if (test.test(t)) {
                return true;
            }
            if (t.getCause() != null) {
                pending.push(t.getCause());
            }
            pending.addAll(Arrays.asList(t.getSuppressed()));
        }
        return false;
    }
}
