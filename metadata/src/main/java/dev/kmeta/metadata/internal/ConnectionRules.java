package dev.kmeta.metadata.internal;

import dev.kmeta.cluster.Node;
import dev.kmeta.metadata.ConnectionEvidence.Problem;
import dev.kmeta.metadata.ConnectionEvidence.Record;
import dev.kmeta.metadata.Diagnosis.Cause;
import dev.kmeta.metadata.internal.Diagnoser.Decision;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@link Diagnoser}'s connection-level rules: what the evidence recorded for each address says - a TLS or SASL
 * failure (rule 1), no address ever answering (2), a topic no answer described while addresses refuse kmeta's
 * identity, are unreachable as advertised or all fail now (7 to 9), a partition leader's evidence speaking against
 * it (11) - and the wording of that evidence. Each rule returns its {@link Decision}, or null when it does not apply;
 * {@link Diagnoser} calls them in its order.
 *
 * <p>Stateless and thread-safe; called by the waiting application thread.
 */
final class ConnectionRules {
    private static final String ADVERTISED_FIX = "the bootstrap answered, so the network works: fix "
            + "advertised.listeners on the brokers to an address this client can reach (container-internal "
            + "addresses are the usual culprit)";

    private ConnectionRules() {
    }

    /** Rule 1: a fatal error, or an address whose last problem is a TLS or SASL failure. */
    static Decision security(Diagnoser.Facts f, Collection<Record> records) {
        Record tls = find(records, Problem.TLS_HANDSHAKE);
        Record sasl = find(records, Problem.AUTHENTICATION);
        String fatalText = f.fatal == null ? "" : f.fatal.getClass().getSimpleName() + ": " + f.fatal.getMessage();
        if (tls != null || fatalText.startsWith("Ssl")) {
            return new Decision(Cause.TLS_HANDSHAKE_FAILED, "TLS handshake with " + address(tls) + " failed: "
                    + detail(tls, fatalText), "check ssl.truststore.* trusts the brokers' CA, the certificate names "
                    + "the host you connect to and has not expired, that the port is a TLS listener, and, if the "
                    + "listener requires client certificates, that ssl.keystore.* holds one its CA signed, not expired");
        }
        if (sasl != null || f.fatal != null) {
            return new Decision(Cause.AUTHENTICATION_FAILED, "authentication with " + address(sasl) + " failed: "
                    + detail(sasl, fatalText), "check sasl.mechanism and the user and password in "
                    + "sasl.jaas.config, and that the mechanism is enabled on the listener");
        }
        return null;
    }

    /** Rule 2: no address ever answered (every bootstrap name failing DNS, or refused / timed out). */
    static Decision unreachable(Diagnoser.Facts f, Collection<Record> records) {
        for (Record r : records) {
            if (r.everAnswered()) {
                return null;
            }
        }
        if (!f.snapshot.nodes().isEmpty()) {
            return null;
        }
        List<Record> dns = new ArrayList<>();
        for (Record r : records) {
            if (r.isBootstrap() && r.lastProblem() == Problem.DNS) {
                dns.add(r);
            }
        }
        if (!dns.isEmpty() && dns.size() == countBootstrap(records)) {
            return new Decision(Cause.BOOTSTRAP_DNS, dns.get(0).lastDetail(), "check the host names in "
                    + "bootstrap.servers and this host's DNS");
        }
        return new Decision(Cause.BOOTSTRAP_UNREACHABLE, records.isEmpty() ? "no bootstrap address was tried yet"
                : "no bootstrap address answered" + worst(records, true), "check bootstrap.servers (host and port "
                + "of a broker listener), that the brokers run, and firewalls between here and them");
    }

    /**
     * The rules for a topic no answer described yet (7 to 9): a learned broker's address refused kmeta's identity
     * during the wait, the advertised addresses are unreachable, or every address fails now; null when none applies.
     */
    static Decision noAnswer(Diagnoser.Facts f, Collection<Record> records) {
        Record misrouted = misroutedDuringWait(records, f.waitStartMs);
        if (misrouted != null) {
            return misrouted(misrouted, "");
        }
        Record advertised = neverReachedLearnedBroker(records, f.waitStartMs);
        if (advertised != null) {
            return new Decision(Cause.ADVERTISED_LISTENER_UNREACHABLE, "broker " + advertised.nodeId()
                    + " advertises " + advertised.address() + ", unreachable from here: " + problem(advertised),
                    ADVERTISED_FIX);
        }
        if (allFailingNow(records, f.waitStartMs)) {
            return new Decision(Cause.BROKERS_UNREACHABLE, "no broker can be reached now" + worst(records, false),
                    "check that the brokers run and the network between here and them");
        }
        return null;
    }

    /** Rule 11, for a partition that has a leader: what its connection evidence says, or null when nothing. */
    static Decision leader(Diagnoser.Facts f, Node leader, Collection<Record> records) {
        if (!Diagnoser.leaderInDoubt(f.connections, leader)) {
            return null;
        }
        Record r = f.connections.broker(leader.id());
        if (r.lastProblem() == Problem.MISROUTED) {
            return misrouted(r, "; it leads partition " + f.partition);
        }
        if (!r.everConnected()) {
            return anyAnswered(records) ? new Decision(Cause.ADVERTISED_LISTENER_UNREACHABLE, "broker "
                    + leader.id() + " advertises " + r.address() + ", unreachable from here: " + problem(r)
                    + "; it leads partition " + f.partition + " and never accepted a connection, while "
                    + answeredAddress(records) + " answered", ADVERTISED_FIX) : null;
        }
        if (r.unreachableNow()) {
            return new Decision(Cause.BROKERS_UNREACHABLE, "broker " + leader.id() + " at " + r.address()
                    + ", the leader of partition " + f.partition + ", answered before and cannot be reached now: "
                    + problem(r), "check that broker " + leader.id() + " runs and the network between here and "
                    + r.address() + "; a new leader is taken as soon as the brokers elect one");
        }
        return null;
    }

    /** KIP-1242: the broker at a learned broker's address refused the cluster id and node id kmeta sent. */
    private static Decision misrouted(Record r, String more) {
        return new Decision(Cause.MISROUTED_CONNECTION, "broker " + r.nodeId() + "'s address " + r.address()
                + " leads to another broker: " + problem(r) + more + "; kmeta went back to bootstrap.servers",
                "a DNS name, load balancer or IP address that broker " + r.nodeId() + " advertises now points at "
                + "another broker or cluster: fix that entry, or the broker's advertised.listeners, so that each "
                + "address leads to the one broker that advertises it");
    }

    /** A learned broker whose last event, during the wait, is a refusal of kmeta's identity; or null. */
    private static Record misroutedDuringWait(Collection<Record> records, long waitStartMs) {
        for (Record r : records) {
            if (r.lastProblem() == Problem.MISROUTED && r.failingNow() && r.lastProblemMs() >= waitStartMs) {
                return r;
            }
        }
        return null;
    }

    private static boolean anyAnswered(Collection<Record> records) {
        return answeredAddress(records) != null;
    }

    /**
     * An address that answered, a bootstrap one first, as "bootstrap host:port" or "broker N at host:port"; null if
     * none did.
     */
    private static String answeredAddress(Collection<Record> records) {
        Record answered = null;
        for (Record r : records) {
            if (r.everAnswered() && (answered == null || r.isBootstrap() && !answered.isBootstrap())) {
                answered = r;
            }
        }
        return answered == null ? null : answered.isBootstrap() ? "bootstrap " + answered.address()
                : "broker " + answered.nodeId() + " at " + answered.address();
    }

    /**
     * A learned broker that never accepted a connection, when the bootstrap answers (during the wait, or it has not failed since
     * it did) and every learned broker tried fails; or null.
     */
    private static Record neverReachedLearnedBroker(Collection<Record> records, long waitStartMs) {
        boolean bootstrapAnswered = false;
        Record failing = null;
        for (Record r : records) {
            if (r.isBootstrap()) {
                // It answers still: during the wait, or it has not failed since. A bootstrap that answered once and
                // fails now too means every address went dark (BROKERS_UNREACHABLE), not a bad advertised listener.
                bootstrapAnswered |= r.everAnswered() && (r.lastAnswerMs() >= waitStartMs || !r.failingNow());
            } else if (r.everAnswered() || r.everConnected() || !r.failingNow()) {
                return null; // a broker that accepted a connection once is reachable at its advertised address
            } else if (failing == null || r.attempts() > failing.attempts()) {
                failing = r;
            }
        }
        return bootstrapAnswered ? failing : null;
    }

    /**
     * True when no address answered during the wait (nor became and stayed connected) and at least one failed
     * during it (connections still being attempted when the budget ran out count as neither).
     */
    private static boolean allFailingNow(Collection<Record> records, long waitStartMs) {
        boolean failed = false;
        for (Record r : records) {
            if (r.lastAnswerMs() >= waitStartMs || (r.lastConnectedMs() >= waitStartMs && !r.failingNow())) {
                return false;
            }
            failed |= r.failingNow() && r.lastProblemMs() >= waitStartMs;
        }
        return failed;
    }

    private static Record find(Collection<Record> records, Problem p) {
        for (Record r : records) {
            if (r.lastProblem() == p) {
                return r;
            }
        }
        return null;
    }

    private static int countBootstrap(Collection<Record> records) {
        int n = 0;
        for (Record r : records) {
            if (r.isBootstrap()) {
                n++;
            }
        }
        return n;
    }

    static String worst(Collection<Record> records, boolean bootstrapOnly) {
        Record worst = null;
        for (Record r : records) {
            if ((!bootstrapOnly || r.isBootstrap()) && r.lastProblem() != null
                    && (worst == null || r.failures() > worst.failures())) {
                worst = r;
            }
        }
        return worst == null ? "" : ": " + worst.address() + " " + problem(worst);
    }

    private static String problem(Record r) {
        String what;
        switch (r.lastProblem()) {
            case CONNECT_FAILED:
                what = "connection refused or timed out";
                break;
            case REQUEST_TIMEOUT:
                what = "no answer within request.timeout.ms";
                break;
            case DISCONNECTED:
                what = "connection dropped";
                break;
            case DNS:
                what = r.lastDetail() != null ? r.lastDetail() : "host name does not resolve";
                break;
            case MISROUTED:
                what = r.lastDetail() != null ? r.lastDetail() : "the broker there refused kmeta's cluster id and "
                        + "node id (REBOOTSTRAP_REQUIRED)";
                break;
            default:
                what = r.lastProblem().toString();
        }
        return what + " (" + r.attempts() + " attempt(s))";
    }

    private static String address(Record r) {
        return r == null ? "the brokers" : r.address();
    }

    private static String detail(Record r, String fallback) {
        return r != null && r.lastDetail() != null ? r.lastDetail() : fallback;
    }
}
