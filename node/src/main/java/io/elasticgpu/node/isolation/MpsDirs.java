package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One share's directories on the host, under the agent's MPS root: {@code pipe} (the daemon's pipe directory,
 * mounted into the share's containers at {@link #CONTAINER_PIPE}), {@code shm} (the daemon's and its clients'
 * {@code /dev/shm}), {@code log} (the daemon's log directory, never mounted) and {@code share.json} (what the agent
 * set, for a restarted agent). Immutable.
 */
public record MpsDirs(Path share) {

    /** Where a container sees its share's pipe directory; {@code CUDA_MPS_PIPE_DIRECTORY} says so. */
    public static final String CONTAINER_PIPE = "/tmp/nvidia-mps";
    /** Where a container sees its share's shared memory. */
    public static final String CONTAINER_SHM = "/dev/shm";

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
