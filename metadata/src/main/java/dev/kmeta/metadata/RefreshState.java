package dev.kmeta.metadata;

/**
 * The state of the metadata refresh state machine.
 *
 * <pre>
 *   STABLE ──(age, requestUpdate, new topic, invalidation)──▶ NEED_UPDATE
 *   NEED_UPDATE ──(backoff over, node ready: one request out)──▶ IN_FLIGHT
 *   IN_FLIGHT ──(answer applied, nothing more asked)──▶ STABLE
 *   IN_FLIGHT ──(failure, or more asked while in flight)──▶ NEED_UPDATE
 *   any ──(close)──▶ CLOSED
 * </pre>
 */
public enum RefreshState {
    /** Metadata is as fresh as asked; the next refresh is the periodic one. */
    STABLE,
    /** A refresh is wanted and will go out once the backoff allows and a broker is ready. */
    NEED_UPDATE,
    /** One metadata request is on the wire. */
    IN_FLIGHT,
    /** Closed: no more requests, every waiter released. */
    CLOSED
}
