package dev.kmeta.examples.spring;

import dev.kmeta.metadata.Diagnosis;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Component;

/**
 * A Spring Boot application whose {@link KafkaTemplate} runs on kmeta: {@code kmeta-spring} on the class path is the
 * only change (pom.xml), nothing of kmeta in the code but {@link Diagnosis}, to print why a send failed. It sends
 * {@value OrderSender#ORDERS} orders to the topic {@code orders} and prints each acknowledgement, or kmeta's diagnosis
 * (cause, what was seen, the fix) of a send that failed - a broker that is not there within
 * {@code max.block.ms} (5 s, application.properties), not after Kafka's 60 s default. Exit code 0 when every order
 * was acknowledged, 1 otherwise.
 *
 * <pre>
 * ./kmeta broker                 # in one terminal: a Kafka broker on 127.0.0.1:9092
 * examples/spring-boot/run       # in another
 * </pre>
 *
 * Not thread-safe (a {@code main}).
 */
@SpringBootApplication
public class OrdersApplication {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the application to its end; its exit code (Spring's {@code --server...}-style arguments taken). */
    public static int run(String... args) {
        try (ConfigurableApplicationContext context = SpringApplication.run(OrdersApplication.class, args)) {
            return SpringApplication.exit(context);
        }
    }

    /** Sends the orders at start-up; its exit code says whether all were acknowledged. */
    @Component
    static class OrderSender implements ApplicationRunner, ExitCodeGenerator {
        static final int ORDERS = 10;
        private final KafkaTemplate<String, String> template;
        private final PrintStream out = System.out;
        private volatile int exitCode = 1;

        OrderSender(KafkaTemplate<String, String> template) {
            this.template = template;
        }

        @Override
        public void run(ApplicationArguments args) {
            List<CompletableFuture<SendResult<String, String>>> sends = new ArrayList<>();
            int acked = 0;
            try {
                for (int i = 1; i <= ORDERS; i++) {
                    sends.add(template.send("orders", "order-" + i, "created"));
                }
                for (CompletableFuture<SendResult<String, String>> send : sends) {
                    SendResult<String, String> sent = send.get(30, TimeUnit.SECONDS);
                    out.println(sent.getProducerRecord().key() + " acked: " + sent.getRecordMetadata());
                    acked++;
                }
            } catch (Exception e) { // Spring's KafkaException from send(), or the future's ExecutionException
                out.println("not sent: " + Diagnosis.from(e).map(d -> d.cause() + ": " + d.seen() + ". Fix: "
                        + d.fix()).orElse(e.toString()));
            }
            out.println(acked + " of " + ORDERS + " orders acknowledged");
            exitCode = acked == ORDERS ? 0 : 1;
        }

        @Override
        public int getExitCode() {
            return exitCode;
        }
    }
}
