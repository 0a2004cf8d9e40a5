package dev.kmeta.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kmeta lookup}: not built yet. Not thread-safe. */
@Command(name = "lookup", mixinStandardHelpOptions = true, description = "Not built yet.")
final class LookupCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 2;
    }
}
