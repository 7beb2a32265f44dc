package io.elasticgpu.node.isolation;

import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A share's MPS v3 server and namespace made so on the daemon: the server of the share's cards created with exactly
 * those cards and watched until it counts as running, the share's namespace created with its limits set and read back,
 * and the namespace's directory, the one thing its containers are given, found below the daemon's pipe directory;
 * with which servers could not be started again, so that each is logged once. Not thread-safe: {@link MpsNamespaces}
 * calls it under its lock.
 */
final class NamespaceSetup {

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceSetup.class);
    /**
     * How long a new server is watched before it counts as running: one whose card is missing is accepted by
     * {@code server create} and leaves {@code server list} when its process exits (NVIDIA's guide).
     */
    static final Duration SERVER_SETTLE = Duration.ofMillis(200);

    private final V3Control v3;
    private final Map<String, Integer> cardIndex = new HashMap<>();
    private final Set<String> failing = new HashSet<>(); // servers that could not be started again, logged once

    NamespaceSetup(V3Control v3, Hardware hardware) {
        this.v3 = v3;
        for (Gpu g : hardware.gpus()) {
            cardIndex.put(g.uuid(), g.index());
        }
    }

    /** The server of the share's cards: {@code card_<index>}, or {@code cards_<i>_<j>…} for several. */
    String serverName(MpsShare share) {
        List<Integer> out = new ArrayList<>();
        for (String uuid : share.cards()) {
            Integer i = cardIndex.get(uuid);
            if (i == null) {
                throw new MpsException("MPS share %s (%s) names card %s, which is not on this node"
                        .formatted(share.key(), share.holder(), uuid));
            }
            out.add(i);
        }
        return V3Control.serverName(out);
    }

    /** The share's cards in index order: the server's allowed devices. */
    List<String> cards(MpsShare share) {
        return share.cards().stream()
                .distinct()
                .sorted(Comparator.comparing(u -> cardIndex.getOrDefault(u, Integer.MAX_VALUE)))
                .toList();
    }

    /**
     * Creates the server if it is not there, and refuses one that leaves the server list at once: its clients would
     * run unheld.
     */
    void ensureServer(String server, List<String> uuids) {
        if (v3.servers().containsKey(server)) {
            return;
        }
        v3.createServer(server, uuids);
        boolean listed = v3.servers().containsKey(server);
        if (listed) {
            awaitExit(v3.servers().get(server));
            listed = v3.servers().containsKey(server);
        }
        if (!listed) {
            try {
                v3.deleteServer(server);
            } catch (MpsException e) {
                // gone already, as expected
            }
            throw new MpsException(("MPS server %s (cards %s) left the MPS daemon's server list right after it was"
                            + " created: its process exited, and a client aimed at it would run without MPS and"
                            + " without any limit. A card it names is missing or unusable; see %s and check the"
                            + " cards with nvidia-smi")
                    .formatted(server, uuids, v3.dirs().log().resolve(server).resolve("server.log")));
        }
        failing.remove(server);
        LOG.info("MPS v3: server {} created on {}", server, uuids);
    }

    /** The server could not be started again; returns whether that is news, not logged since it last ran. */
    boolean failed(String server) {
        return failing.add(server);
    }

    /** The server was deleted: a later failure to start it is news again. */
    void deleted(String server) {
        failing.remove(server);
    }

    /** Creates the share's namespace if it is not there; sets its limits unless they read back as set. */
    void ensureNamespace(Held h) {
        boolean exists = v3.namespaces(h.server()).containsKey(h.namespace());
        if (!exists) {
            v3.createNamespace(h.namespace(), h.server());
        }
        if (exists && limitsSet(h)) {
            return;
        }
        setLimits(h);
        if (!limitsSet(h)) {
            throw new MpsException(("MPS namespace %s of server %s reports a pinned memory limit of \"%s\" and an"
                            + " active thread percentage of \"%s\" after they were set to %dM and %d; share %s (%s)"
                            + " would not be held to its limits")
                    .formatted(
                            h.namespace(),
                            h.server(),
                            get(h, V3Control.PINNED),
                            get(h, V3Control.THREADS),
                            pinnedMib(h.share()),
                            h.share().limits().threadPercent(),
                            h.share().key(),
                            h.share().holder()));
        }
    }

    /** Whether the namespace's limits read back, with NVIDIA's documented getters, as the share's. */
    private boolean limitsSet(Held h) {
        return samePinned(get(h, V3Control.PINNED), h.share()).orElse(false)
                && samePercent(get(h, V3Control.THREADS), h.share()).orElse(false);
    }

    /** One field of the share's namespace. */
    String get(Held h, String field) {
        return v3.get(h.namespace(), h.server(), field);
    }

    /** Sets the namespace's limits to the share's. */
    void setLimits(Held h) {
        v3.setLimits(
                h.namespace(),
                h.server(),
                pinnedMib(h.share()),
                h.share().limits().threadPercent());
    }

    /**
     * The namespace's directory as the daemon names it (its documented place, {@code <pipe>/<server>/<namespace>},
     * when it names none), which must be below the daemon's pipe directory and not the pipe directory or a server's.
     */
    String directory(Held h) {
        String answer;
        try {
            answer = get(h, "pipe-directory").strip();
        } catch (MpsException e) {
            answer = ""; // the documented place, checked below
            LOG.debug(
                    "MPS namespace {} of server {}: no pipe-directory ({})", h.namespace(), h.server(), e.getMessage());
        }
        Path pipe = v3.dirs().pipe().toAbsolutePath().normalize();
        Path dir = answer.isEmpty() || answer.equals("-")
                ? pipe.resolve(h.server()).resolve(h.namespace())
                : Path.of(answer).toAbsolutePath().normalize();
        if (!dir.startsWith(pipe) || dir.getNameCount() < pipe.getNameCount() + 2) {
            throw new MpsException(("the MPS daemon names %s as the directory of namespace %s of server %s; the agent"
                            + " gives containers only a namespace's own directory below the daemon's pipe directory"
                            + " %s, where they reach neither the main control socket nor another namespace")
                    .formatted(dir, h.namespace(), h.server(), pipe));
        }
        if (!Files.isDirectory(dir)) {
            throw new MpsException(
                    "namespace %s of server %s has no directory %s to give its containers; see the MPS logs in %s"
                            .formatted(h.namespace(), h.server(), dir, v3.dirs().log()));
        }
        return dir.toString();
    }

    /** What names the directory itself (its inode), not its path; empty when it is not there. */
    static Optional<Object> fileKey(String dir) {
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(Files.readAttributes(Path.of(dir), BasicFileAttributes.class)
                    .fileKey());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The namespace's pinned memory limit: one value for every card, the share's smallest. */
    static long pinnedMib(MpsShare share) {
        return share.limits().memoryMib().stream()
                .mapToLong(Long::longValue)
                .min()
                .orElseThrow();
    }

    /** Whether the answer is the share's pinned limit; empty when it cannot be read as one. */
    static Optional<Boolean> samePinned(String answer, MpsShare share) {
        OptionalLong mib = MpsAnswers.mib(answer);
        return mib.isPresent() ? Optional.of(mib.getAsLong() == pinnedMib(share)) : Optional.empty();
    }

    /** Whether the answer is the share's active thread percentage; empty when it cannot be read as one. */
    static Optional<Boolean> samePercent(String answer, MpsShare share) {
        OptionalDouble percent = MpsAnswers.percent(answer);
        return percent.isPresent()
                ? Optional.of(percent.getAsDouble() == share.limits().threadPercent())
                : Optional.empty();
    }

    /**
     * Waits, for at most {@link MpsNamespaces#SERVER_SETTLE}, on the exit of the server process a server list row
     * names: a server whose card is missing exits at once. A row naming no running process waits for nothing.
     */
    private static void awaitExit(Map<String, String> row) {
        long pid;
        try {
            pid = Long.parseLong(row == null ? "" : row.getOrDefault("pid", "").strip());
        } catch (NumberFormatException e) {
            return;
        }
        ProcessHandle.of(pid).ifPresent(h -> {
            try {
                h.onExit().get(SERVER_SETTLE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // still running: settled
            } catch (ExecutionException e) {
                throw new MpsException("waiting on MPS server %d: %s".formatted(pid, e.getMessage()), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MpsException("interrupted while waiting for a new MPS server", e);
            }
        });
    }
}
