package dev.kmeta.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.ThreadLocalRandom;

/** The storage directory of one cluster: {@code <root>/kafka-<random>/}, deleted when the cluster closes. */
final class Storage {

    private Storage() {
    }

    static Path create(Path root) {
        try {
            Files.createDirectories(root);
            String name = "kafka-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
            return Files.createDirectory(root.resolve(name)).toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster's storage under " + root.toAbsolutePath(), e);
        }
    }

    /** Deletes a directory tree; files that vanish meanwhile are ignored. */
    static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteIfExists(Path path) throws IOException {
        Files.deleteIfExists(path);
    }
}
