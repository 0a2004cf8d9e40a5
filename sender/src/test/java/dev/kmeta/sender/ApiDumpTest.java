package dev.kmeta.sender;

import dev.kmeta.cluster.Cluster;
import dev.kmeta.metadata.Deadline;
import dev.kmeta.testkit.ApiDumpFile;
import dev.kmeta.testkit.ApiSurface;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reviewed public surface: the exported API of kmeta.cluster, kmeta.metadata and kmeta.sender equals the dumps
 * checked in under {@code <module>/api/} ({@link ApiDumpFile}), and names its units by kmeta's one rule. The two
 * lower modules are checked here, where the testkit is on the class path (their own builds do not have it): a change
 * to their API fails this module's build. Regenerate with {@link ApiDumpFile#REGENERATE}.
 */
class ApiDumpTest {
    @Test
    void clusterModel() {
        check(ApiSurface.of(Cluster.class), "../cluster-model/api/cluster-model.api");
    }

    @Test
    void metadata() {
        check(ApiSurface.of(Deadline.class), "../metadata/api/metadata.api");
    }

    @Test
    void sender() {
        check(ApiSurface.of(KafkaMetadata.class), "api/sender.api");
    }

    private static void check(ApiSurface api, String file) {
        ApiDumpFile.check(api, Path.of(file));
        assertEquals(List.of(), api.unitNameViolations(), "units in names");
    }
}
