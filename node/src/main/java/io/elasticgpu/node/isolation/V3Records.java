package io.elasticgpu.node.isolation;

import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the MPS v3 layout keeps on the host for a restarted agent, where no container can write: which process is the
 * control daemon ({@code daemon/daemon.json}, {@link DaemonProcess}) and each held share with its server, namespace
 * and directory ({@code shares/<key>.json}, {@link Held}). Each file is written whole, through a temporary file moved
 * over it. Not thread-safe: {@link MpsNamespaces} calls it under its lock.
 */
final class V3Records {

    private static final Logger LOG = LoggerFactory.getLogger(V3Records.class);
    private static final String SUFFIX = ".json";

    private final Path daemon;
    private final Path shares;

    /**
     * @param daemon the daemon's record ({@link MpsDirs#daemonRecord})
     * @param shares the directory of the shares' records
     */
    V3Records(Path daemon, Path shares) {
        this.daemon = daemon;
        this.shares = shares;
    }

    /** Creates the directory of the shares' records. */
    void create() {
        try {
            Files.createDirectories(shares);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create %s: %s; check that the MPS root is writable".formatted(shares, e.getMessage()), e);
        }
    }

    /** The daemon as last recorded; empty when there is no readable record. */
    Optional<DaemonProcess> daemon() {
        return Records.read(daemon, DaemonProcess.class);
    }

    void daemon(DaemonProcess process) {
        Records.write(daemon, process);
    }

    /** Every readable share record, by file name; one that is not readable is logged and left as it is. */
    List<Held> shares() {
        List<Held> out = new ArrayList<>();
        for (Path f : files()) {
            Optional<Held> h = Records.read(f, Held.class);
            if (h.isEmpty()
                    || !f.getFileName().toString().equals(h.get().share().key() + SUFFIX)) {
                LOG.warn("MPS v3: {} is not a readable share record; left as it is", f);
                continue;
            }
            out.add(h.get());
        }
        return out;
    }

    /** The key each record file is named after, whether or not it can be read. */
    Set<String> keys() {
        Set<String> out = new LinkedHashSet<>();
        for (Path f : files()) {
            String name = f.getFileName().toString();
            out.add(name.substring(0, name.length() - SUFFIX.length()));
        }
        return out;
    }

    void write(Held h) {
        Records.write(record(h.share().key()), h);
    }

    /** Removes the share's record; a record that cannot be removed is logged. */
    void delete(String key) {
        try {
            Files.deleteIfExists(record(key));
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", record(key), e.getMessage());
        }
    }

    private Path record(String key) {
        return shares.resolve(key + SUFFIX);
    }

    private List<Path> files() {
        try (Stream<Path> files = Files.list(shares)) {
            return files.filter(p -> p.getFileName().toString().endsWith(SUFFIX))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read %s: %s".formatted(shares, e.getMessage()), e);
        }
    }
}
