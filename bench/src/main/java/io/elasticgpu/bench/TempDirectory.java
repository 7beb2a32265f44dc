package io.elasticgpu.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory under the system's temporary directory for one benchmark run, deleted with what is in it on close. */
final class TempDirectory implements AutoCloseable {

    private final Path path;

    TempDirectory(String prefix) throws IOException {
        this.path = Files.createTempDirectory(prefix);
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + path + "; delete it by hand", e);
        }
    }
}
