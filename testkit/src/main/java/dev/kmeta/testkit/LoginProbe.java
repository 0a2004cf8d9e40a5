package dev.kmeta.testkit;

import java.io.IOException;
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
import org.apache.kafka.common.utils.internals.LogContext;

/**
 * Opens one connection to one broker address with given client security properties and reports whether the
 * broker let it in (TLS handshake and SASL authentication done), with kafka-clients' own channel builder: exactly
 * what a client would do, and nothing else (no metadata, no other broker).
 */
final class LoginProbe {
    private static final String CHANNEL = "kmeta-testkit-login-probe";
    private static final long POLL_MS = 20;

    /** What happened: ready (let in), or the authentication failure, or another problem in words. */
    record Outcome(boolean ready, AuthenticationException authFailure, String other) {
        static final Outcome OK = new Outcome(true, null, null);
    }

    private LoginProbe() {
    }

    static Outcome login(InetSocketAddress broker, Map<String, Object> clientProps, Duration timeout) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getHostString() + ":" + broker.getPort());
        LogContext logContext = new LogContext("[kmeta-testkit login probe] ");
        Time time = Time.SYSTEM;
        ChannelBuilder channelBuilder = ClientUtils.createChannelBuilder(new QuietConfig(props), time, logContext);
        try (Metrics metrics = new Metrics(time);
             Selector selector = new Selector(30_000L, metrics, time, "kmeta-testkit-probe", channelBuilder,
                     logContext)) {
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

    /** Client configs without the INFO dump of every value. */
    private static final class QuietConfig extends AdminClientConfig {
        QuietConfig(Map<String, Object> props) {
            super(props, false);
        }
    }
}
