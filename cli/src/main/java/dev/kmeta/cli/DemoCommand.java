package dev.kmeta.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kmeta demo}: not built yet. Not thread-safe. */
@Command(name = "demo", mixinStandardHelpOptions = true, description = "Not built yet.")
final class DemoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 2;
    }
}
