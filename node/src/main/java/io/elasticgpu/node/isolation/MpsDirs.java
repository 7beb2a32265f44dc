package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One MPS control daemon's directories on the host, under the agent's MPS root: {@code pipe} (the daemon's pipe
 * directory, mounted into the containers it serves at {@link MpsAccess#CONTAINER_PIPE}), {@code shm} (the daemon's
 * {@code /dev/shm}, and its clients' unless their pod brings its own), {@code log} (the daemon's log directory, never
 * mounted), and, never mounted either, what the agent keeps for a restarted agent: {@code share.json} (the share and
 * its limits) and {@code daemon.json} (which process is the daemon). Nothing the agent trusts is in a directory a
 * container can write. Immutable.
 */
public record MpsDirs(Path share) {

    public MpsDirs {
        requireNonNull(share, "share");
    }

    public Path pipe() {
        return share.resolve("pipe");
    }

    public Path shm() {
        return share.resolve("shm");
    }

    public Path log() {
        return share.resolve("log");
    }

    public Path record() {
        return share.resolve("share.json");
    }

    /** Which process is the daemon ({@link DaemonProcess}), as the agent found it when it started it. */
    public Path daemonRecord() {
        return share.resolve("daemon.json");
    }

    /**
     * Creates the directories; the pipe and shm directories are for the share's containers too, whatever their user. */
    void create() {
        try {
            for (Path p : new Path[] {pipe(), shm(), log()}) {
                Files.createDirectories(p);
            }
            pipe().toFile().setWritable(true, false);
            shm().toFile().setWritable(true, false);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create the MPS directories of %s: %s; check that the MPS root is writable"
                            .formatted(share, e.getMessage()),
                    e);
        }
    }
}
