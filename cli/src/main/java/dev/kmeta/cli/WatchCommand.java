package dev.kmeta.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kmeta watch}: not built yet. Not thread-safe. */
@Command(name = "watch", mixinStandardHelpOptions = true, description = "Not built yet.")
final class WatchCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 2;
    }
}
