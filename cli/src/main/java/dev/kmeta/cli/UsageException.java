package dev.kmeta.cli;

/**
 * Bad input that only the user can fix (no connection option, an unreadable file, a bad value): the command prints
 * the message as one line on stderr and exits with {@link KmetaCli#EXIT_USAGE}. Immutable.
 */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
