package dev.kmeta.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The keytool command lines {@link TestCertificates} runs, checked without running keytool. */
class KeytoolTest {
    private static final String PASSWORD = "pw-secret-1234";
    private final Keytool keytool = new Keytool(Path.of("target", "keytool-test"), PASSWORD);

    @Test
    void thePasswordComesFromTheEnvironmentNeverTheCommandLine() {
        List<String> command = keytool.command("ca", "-genkeypair", "-alias", "ca", "-dname", "CN=x");
        assertFalse(String.join(" ", command).contains(PASSWORD));
        assertEquals(List.of("-storepass:env", Keytool.PASSWORD_ENV), command.subList(command.size() - 2,
                command.size()));
        assertTrue(Collections.indexOfSubList(command, List.of("-keystore", "ca.p12", "-storetype", "PKCS12"))
                > 0);
    }

    @Test
    void keyPairsAreEcP256ValidFromADayAgoForThirtyDays() {
        List<String> command = keytool.command("broker", "-genkeypair", "-alias", "broker", "-dname", "CN=localhost");
        assertTrue(Collections.indexOfSubList(command, List.of("-keyalg", "EC", "-groupname", "secp256r1")) > 0);
        assertTrue(Collections.indexOfSubList(command, List.of("-validity", "30", "-startdate", "-1d")) > 0);
        assertFalse(command.contains("-rfc"));
    }

    @Test
    void aCertificateIsPemAndKeepsAValidityItNames() {
        List<String> command = keytool.command("ca", "-gencert", "-alias", "ca", "-infile", "client.csr",
                "-startdate", "-60d", "-validity", "30");
        assertTrue(command.contains("-rfc"));
        assertEquals(1, Collections.frequency(command, "-validity"));
        assertEquals(List.of("-60d"), List.of(command.get(command.indexOf("-startdate") + 1)));
        assertFalse(command.contains("-keyalg"));
    }

    @Test
    void otherCommandsGetNoValidity() {
        List<String> command = keytool.command("broker", "-certreq", "-alias", "broker", "-file", "broker.csr");
        assertFalse(command.contains("-validity"));
        assertEquals("-certreq", command.get(4));
    }
}
