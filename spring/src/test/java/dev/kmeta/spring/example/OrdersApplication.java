package dev.kmeta.spring.example;

import dev.kmeta.metadata.Diagnosis;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;

import java.util.concurrent.TimeUnit;

/**
 * An application to copy: Spring Boot, Boot's {@link KafkaTemplate}, and kmeta-spring on the class path - nothing
 * else of kmeta in the code. It sends one order, then one to a topic that does not exist, and prints why that failed:
 * kmeta's diagnosis (cause, what was seen, the fix), found in the exception Spring hands over by
 * {@link Diagnosis#from(Throwable)}.
 *
 * <pre>
 * spring.kafka.bootstrap-servers=localhost:9092
 * spring.kafka.producer.properties[max.block.ms]=5000     # how long a send may wait for metadata
 * </pre>
 *
 * <p>Run with {@code --spring.kafka.bootstrap-servers=host:port}; {@code ReadmeAndExampleTest} runs it against a test
 * broker. Not thread-safe (a {@code main}).
 */
@SpringBootApplication
public class OrdersApplication {
    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args).close();
    }

    @Bean
    ApplicationRunner sendOrders(KafkaTemplate<String, String> template) {
        return args -> {
            SendResult<String, String> sent = template.send("orders", "order-1", "created").get(30, TimeUnit.SECONDS);
            System.out.println("order-1 sent to " + sent.getRecordMetadata());
            try {
                template.send("orders-typo", "order-2", "created").get(30, TimeUnit.SECONDS);
            } catch (Exception e) { // Spring's KafkaException from send(), or the future's ExecutionException
                Diagnosis.from(e).ifPresentOrElse(
                        d -> System.out.println("order-2 not sent: " + d.cause() + ": " + d.seen() + ". Fix: "
                                + d.fix()),
                        () -> System.out.println("order-2 not sent: " + e));
            }
        };
    }
}
