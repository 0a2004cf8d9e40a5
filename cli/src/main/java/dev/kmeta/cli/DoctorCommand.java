package dev.kmeta.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code kmeta doctor}: not built yet. Not thread-safe. */
@Command(name = "doctor", mixinStandardHelpOptions = true, description = "Not built yet.")
final class DoctorCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 2;
    }
}
