package dev.kmeta.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;

/**
 * Main class of a broker in a child JVM: runs {@code kafka.Kafka} and halts when its stdin reaches end of file,
 * which happens when the parent JVM dies, however it dies: a test JVM killed mid-run leaves no broker behind.
 *
 * <p>Arguments: {@code [--format <cluster-id>] <server.properties>}. With {@code --format} it first formats the
 * node's storage with the Kafka version of this JVM's class path ({@code StorageTool}, whose entry point differs
 * between versions: {@code execute(String[], PrintStream)} from 3.9, {@code execute(String[])} in 3.7, only {@code main} before), so that a
 * node of another Kafka version is formatted by its own code.
 */
final class ChildBroker {

    private ChildBroker() {
    }

    public static void main(String[] args) throws Exception {
        Thread watcher = new Thread(ChildBroker::haltWhenParentGone, "kmeta-testkit-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
        String[] kafkaArgs = args;
        if (args.length >= 3 && args[0].equals("--format")) {
            kafkaArgs = Arrays.copyOfRange(args, 2, args.length);
            format(args[1], kafkaArgs[0]);
        }
        kafka.Kafka.main(kafkaArgs);
    }

    private static void format(String clusterId, String config) throws Exception {
        Class<?> tool = Class.forName("kafka.tools.StorageTool");
        String[] formatArgs = {"format", "-t", clusterId, "-c", config};
        Object code;
        try {
            Method execute = tool.getMethod("execute", String[].class, PrintStream.class);
            code = execute.invoke(null, formatArgs, System.out);
        } catch (NoSuchMethodException e) {
            try {
                code = tool.getMethod("execute", String[].class).invoke(null, (Object) formatArgs);
            } catch (NoSuchMethodException e2) {
                code = formatThroughMain(tool, formatArgs);
            }
        }
        if (!Integer.valueOf(0).equals(code)) {
            System.out.println("formatting failed: " + code);
            System.out.flush();
            Runtime.getRuntime().halt(4);
        }
    }

    /** Thrown by the exit procedure installed around {@code StorageTool.main}: carries the status it exits with. */
    private static final class ExitCalled extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;

        ExitCalled(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    /**
     * Kafka 3.6 and older: only {@code StorageTool.main}, which ends with {@code Exit.exit(status)}. Kafka's exit
     * procedure ({@code org.apache.kafka.common.utils.Exit}, an interface of that version's kafka-clients) is
     * replaced for the call by one that throws, so the status comes back here and the JVM goes on to the broker.
     */
    private static Object formatThroughMain(Class<?> tool, String[] formatArgs) throws Exception {
        Class<?> exit = Class.forName("org.apache.kafka.common.utils.Exit");
        Class<?> procedure = Class.forName("org.apache.kafka.common.utils.Exit$Procedure");
        Object throwing = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure},
                (proxy, method, methodArgs) -> {
                    if (method.getName().equals("execute")) {
                        throw new ExitCalled((Integer) methodArgs[0]);
                    }
                    return method.invoke(proxy, methodArgs);
                });
        exit.getMethod("setExitProcedure", procedure).invoke(null, throwing);
        try {
            tool.getMethod("main", String[].class).invoke(null, (Object) formatArgs);
            return 0;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof ExitCalled called) {
                return called.status;
            }
            throw e;
        } finally {
            exit.getMethod("resetExitProcedure").invoke(null);
        }
    }

    private static void haltWhenParentGone() {
        InputStream in = System.in;
        try {
            while (in.read() >= 0) {
                // the parent never writes; reading only detects its end
            }
        } catch (IOException e) {
            // the same: the pipe is gone
        }
        Runtime.getRuntime().halt(3);
    }
}
