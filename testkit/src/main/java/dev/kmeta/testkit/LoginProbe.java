package dev.kmeta.testkit;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelState;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * Opens one connection to one broker address with given client security properties and reports whether the
 * broker let it in (TLS handshake and SASL authentication done), with kafka-clients' own channel builder: exactly
 * what a client would do, and nothing else (no metadata, no other broker).
 *
 * <p>Runs on kafka-clients 4.0 to 4.4 (a test JVM may hold any of them while its brokers run in child JVMs):
 * {@code LogContext}, which both calls take, moved to {@code common.utils.internals} in 4.4, so it is found by name.
 */
final class LoginProbe {
    private static final String CHANNEL = "kmeta-testkit-login-probe";
    private static final long POLL_MS = 20;

    /** What happened: ready (let in), or the authentication failure, or another problem in words. */
    record Outcome(boolean ready, AuthenticationException authFailure, String other) {
        static final Outcome OK = new Outcome(true, null, null);
    }

    private static final Class<?> LOG_CONTEXT = logContextClass();
    private static final MethodHandle NEW_LOG_CONTEXT;
    private static final MethodHandle CHANNEL_BUILDER;
    private static final MethodHandle NEW_SELECTOR;

    static {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try {
            NEW_LOG_CONTEXT = lookup.findConstructor(LOG_CONTEXT, MethodType.methodType(void.class, String.class));
            CHANNEL_BUILDER = lookup.findStatic(ClientUtils.class, "createChannelBuilder",
                    MethodType.methodType(ChannelBuilder.class, AbstractConfig.class, Time.class, LOG_CONTEXT));
            NEW_SELECTOR = lookup.findConstructor(Selector.class, MethodType.methodType(void.class, long.class,
                    Metrics.class, Time.class, String.class, ChannelBuilder.class, LOG_CONTEXT));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private LoginProbe() {
    }

    private static Class<?> logContextClass() {
        for (String name : new String[] {"org.apache.kafka.common.utils.internals.LogContext",
                "org.apache.kafka.common.utils.LogContext"}) {
            try {
                return Class.forName(name, false, ClientUtils.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                // the other package
            }
        }
        throw new ExceptionInInitializerError("no LogContext in kafka-clients");
    }

    static Outcome login(InetSocketAddress broker, Map<String, Object> clientProps, Duration timeout) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getHostString() + ":" + broker.getPort());
        Time time = Time.SYSTEM;
        Object logContext = invoke(NEW_LOG_CONTEXT, "[kmeta-testkit login probe] ");
        ChannelBuilder channelBuilder = (ChannelBuilder) invoke(CHANNEL_BUILDER, new QuietConfig(props), time,
                logContext);
        try (Metrics metrics = new Metrics(time);
             Selector selector = (Selector) invoke(NEW_SELECTOR, 30_000L, metrics, time, "kmeta-testkit-probe",
                     channelBuilder, logContext)) {
            selector.connect(CHANNEL, broker, 64 * 1024, 64 * 1024);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                selector.poll(POLL_MS);
                if (selector.isChannelReady(CHANNEL)) {
                    return Outcome.OK;
                }
                ChannelState closed = selector.disconnected().get(CHANNEL);
                if (closed != null) {
                    return new Outcome(false, closed.exception(), "disconnected in state " + closed.state());
                }
            }
            return new Outcome(false, null, "not ready within " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            return new Outcome(false, null, e.toString());
        }
    }

    private static Object invoke(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Client configs without the INFO dump of every value. */
    private static final class QuietConfig extends AdminClientConfig {
        QuietConfig(Map<String, Object> props) {
            super(props, false);
        }
    }
}
