package dev.kmeta.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import dev.kmeta.sender.internal.KafkaClientsCompat;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code kmeta -V} (and {@code kmeta <command> -V}) prints: kmeta's version, the kafka-clients version it talks
 * to brokers with, and the Java runtime, one per line, e.g.
 * <pre>
 * kmeta 0.1.0-SNAPSHOT
 * kafka-clients 4.4.0 (commit 1a2b3c4d5e6f7a8b)
 * Java 17.0.15 (Eclipse Adoptium OpenJDK 64-Bit Server VM 17.0.15+6)
 * </pre>
 * kmeta's version is the build's {@code ${project.version}}, filtered into {@code kmeta-version.properties} when the
 * CLI is built (so it is right in tests and in the jar alike); the jar manifest's {@code Implementation-Version} is
 * the fallback, then "unknown". The kafka-clients version is what the jar its classes come from says of itself
 * ({@code kafka/kafka-version.properties} there, else {@code AppInfoParser}, in {@code common.utils} up to 4.3 and
 * {@code common.utils.internals} from 4.4; read by {@code KafkaClientsCompat}).
 *
 * <p>Stateless and thread-safe; picocli makes one per command.
 */
final class VersionProvider implements IVersionProvider {
    static final String RESOURCE = "kmeta-version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {
            "kmeta " + kmetaVersion(),
            "kafka-clients " + KafkaClientsCompat.version() + " (commit " + KafkaClientsCompat.commitId() + ")",
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.vendor") + " "
                    + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version") + ")"
        };
    }

    /** kmeta's version from the filtered resource, else the jar manifest, else "unknown". */
    static String kmetaVersion() {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String version = p.getProperty("version");
        if (version == null || version.isBlank() || version.contains("${")) {
            version = VersionProvider.class.getPackage().getImplementationVersion();
        }
        return version == null ? "unknown" : version;
    }
}
