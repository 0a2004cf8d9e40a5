package dev.kmeta.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How the user stops a command that runs until stopped ({@code watch}): {@link #ctrlC()} in the real command, a fake
 * in tests. Implementations are thread-safe.
 */
interface StopSignal {
    /**
     * Calls {@code stop} (on some other thread) when the user asks to stop, until the returned handle is closed.
     *
     * @return closes the subscription (restores what was there before); never throws
     */
    Subscription onStop(Runnable stop);

    /** A subscription to a stop signal. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** No signal: the command stops on its own terms only (the default for in-process runs, e.g. tests). */
    static StopSignal none() {
        return stop -> () -> { };
    }

    /**
     * Ctrl-C (SIGINT) caught, so that it ends the command like {@code --duration} does - its last line out, exit 0 -
     * instead of starting the JVM's shutdown, which ends the process with 130 whatever the command returns. A second
     * Ctrl-C while the first is being handled exits at once with 130. Where SIGINT cannot be caught (no
     * {@code sun.misc.Signal}, {@code -Xrs}, or SIGINT ignored, as for a background job of a non-interactive shell)
     * nothing is subscribed and the JVM's own handling stays (the command's shutdown hook then ends it, exit 130).
     * Uses {@code sun.misc.Signal} (module jdk.unsupported) through reflection: javac warns about it at every use and
     * the build fails on warnings.
     */
    static StopSignal ctrlC() {
        return stop -> {
            try {
                Class<?> signalType = Class.forName("sun.misc.Signal");
                Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
                Object sigint = signalType.getConstructor(String.class).newInstance("INT");
                Method handle = signalType.getMethod("handle", signalType, handlerType);
                Object ignore = handlerType.getField("SIG_IGN").get(null);
                AtomicBoolean asked = new AtomicBoolean();
                Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                        (proxy, method, args) -> switch (method.getName()) {
                            case "handle" -> {
                                if (asked.compareAndSet(false, true)) {
                                    stop.run();
                                } else {
                                    System.exit(130); // a second Ctrl-C: the user insists (shutdown hooks run)
                                }
                                yield null;
                            }
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "kmeta Ctrl-C handler";
                        });
                Object previous = handle.invoke(null, sigint, handler);
                if (previous == ignore) { // SIGINT was ignored (a background job): keep it so
                    handle.invoke(null, sigint, previous);
                    return () -> { };
                }
                return () -> {
                    try {
                        handle.invoke(null, sigint, previous);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        // the JVM is exiting, or the previous handler cannot be put back: nothing left to restore
                    }
                };
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return () -> { };
            }
        };
    }
}
