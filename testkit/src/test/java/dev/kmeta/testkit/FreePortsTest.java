package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ports come from outside the ephemeral range, each free when handed out, never twice. */
class FreePortsTest {

    @Test
    void theBandLiesBelowTheDefaultEphemeralRangeAboveTheCommonServerPorts() {
        assertEquals(new FreePorts.Band(10_000, 32_767), FreePorts.bandOutside(new FreePorts.Band(32_768, 60_999)));
    }

    @Test
    void aRangeLeavingLittleRoomBelowGivesTheBandAbove() {
        assertEquals(new FreePorts.Band(50_001, 65_535), FreePorts.bandOutside(new FreePorts.Band(2_000, 50_000)));
    }

    @Test
    void aRangeStartingJustAbove10000GivesTheWholeBandBelow() {
        assertEquals(new FreePorts.Band(1_024, 10_499), FreePorts.bandOutside(new FreePorts.Band(10_500, 65_000)));
    }

    @Test
    void aRangeCoveringEveryUnprivilegedPortLeavesNoBandAndTheKernelPicks() {
        FreePorts.Band none = FreePorts.bandOutside(new FreePorts.Band(1_024, 65_535));
        assertEquals(0, none.size());
        int port = new FreePorts(none, 0).take();
        assertTrue(port > 0, "a kernel-picked port: " + port);
    }

    @Test
    void theRangeIsReadFromTheKernelsFileOrAssumed(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("ip_local_port_range"), "40000\t50000\n");
        assertEquals(new FreePorts.Band(40_000, 50_000), FreePorts.ephemeralRange(file));
        assertEquals(FreePorts.DEFAULT_EPHEMERAL, FreePorts.ephemeralRange(dir.resolve("missing")));
        assertEquals(FreePorts.DEFAULT_EPHEMERAL,
                FreePorts.ephemeralRange(Files.writeString(dir.resolve("garbage"), "many\n")));
        assertEquals(FreePorts.DEFAULT_EPHEMERAL,
                FreePorts.ephemeralRange(Files.writeString(dir.resolve("reversed"), "50000 40000\n")));
    }

    @Test
    void thisJvmsPortsLieOutsideTheEphemeralRangeAndNeverRepeat() {
        FreePorts.Band ephemeral = FreePorts.ephemeralRange(FreePorts.EPHEMERAL_RANGE_FILE);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            int port = FreePorts.next();
            assertFalse(ephemeral.contains(port), port + " is in the ephemeral range " + ephemeral);
            assertTrue(FreePorts.band().contains(port), port + " is outside " + FreePorts.band());
            assertTrue(seen.add(port), port + " handed out twice");
        }
    }

    @Test
    void candidatesStartAtTheOffsetAndWrapAround() {
        FreePorts ports = new FreePorts(new FreePorts.Band(20_000, 20_002), 2);
        assertEquals(20_002, ports.candidate(0));
        assertEquals(20_000, ports.candidate(1));
        assertEquals(20_001, ports.candidate(2));
    }

    @Test
    void aTakenPortIsSkippedAndAFreeOneHandedOutOnce() throws IOException {
        int port = FreePorts.next();
        FreePorts.Band one = new FreePorts.Band(port, port);
        try (ServerSocket rival = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, rival.getLocalPort());
            assertInstanceOf(BindException.class, FreePorts.bindFailure(port));
            assertNotEquals(port, new FreePorts(one, 0).take(), "taken, so skipped");
        }
        assertNull(FreePorts.bindFailure(port));
        FreePorts fresh = new FreePorts(one, 0);
        assertEquals(port, fresh.take());
        assertNotEquals(port, fresh.take(), "never twice");
    }
}
