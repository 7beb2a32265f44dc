package io.elasticgpu.node.isolation;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's shares held by MPS v3 ({@link IsolationConfig.Layout#V3}; driver r615 or later): one control daemon for
 * the node, one MPS server per set of cards, and one namespace per share carrying the share's limits. A share on one
 * card is served by that card's server ({@code card_<index>}); a share across cards by a server whose allowed devices
 * are exactly those cards ({@code cards_<i>_<j>…}). Shares of one card so compute side by side in one server, where
 * daemons per share time-slice the card between their servers. Each share's namespace ({@code s_<key>}) has the
 * share's per-process limits, set on the daemon's side by command and read back before kubelet is answered: the
 * pinned memory limit (one value for every card of the namespace: a share across cards gets its smallest) and the
 * active thread percentage, which in v3 overrides whatever a client's environment asks. A share's containers are
 * given only their namespace's directory ({@code <pipe>/<server>/<namespace>}, mounted at
 * {@link MpsAccess#CONTAINER_PIPE}), so they reach neither the daemon's main control socket nor another share's
 * namespace; nothing in their environment holds a limit, and their pod keeps its own {@code /dev/shm}.
 *
 * <p>Where the kernel and driver have the dmem cgroup controller ({@link CgroupMemoryLimits}), each container's
 * memory on each card is also held by its cgroup, in the kernel: the share's memory on that card for the whole
 * container, {@code (per-process limit + context reserve) × processes}, set the first time a process of the share is
 * seen as a client ({@link #processes}) and read back by {@link #audit}. That is what holds a client that escapes its
 * pinned limit (MPS drops every pinned limit of a client whose {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} names a card
 * it cannot see); between a process's start and the agent's next round it is held by the pinned limit only.
 *
 * <p>On the host, under {@code <root>/v3/}: {@code daemon/} (the daemon's {@link MpsDirs}: {@code pipe/},
 * {@code log/}, {@code shm/} and {@code daemon.json}, which process is the daemon) and {@code shares/<key>.json}
 * (each share with its server, namespace and directory), neither mounted into any container. A restarted agent
 * adopts the running daemon and the recorded shares ({@link #open}) and starts no second daemon. Servers are created
 * with {@code --uid=0}: the daemon runs multi-user, so that pods run as any user.
 *
 * <p>Thread-safe; every method holds the lock for its whole work, which includes runs of the control program
 * (milliseconds each, bounded by its timeout).
 *
 * <p>It is over 400 lines because one lock guards the one daemon's servers, namespaces and the cgroup limits of their
 * clients, which every path (hold, check, audit, processes, release) reads and changes together; reading v3's CSV
 * lists, a few lines, sits with the only caller.
 */
public final class MpsNamespaces implements ShareServers {

    private static final Logger LOG = LoggerFactory.getLogger(MpsNamespaces.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The daemon's arguments: in the background, MPS v3's protocol, multi-user. */
    static final List<String> DAEMON_ARGS = List.of("-d", "-p", "3", "-m");
    /** Before every command: as NVIDIA's guide calls v3 (a running daemon's own protocol would decide anyway). */
    private static final List<String> PROTOCOL = List.of("-p", "3");
    /**
     * How long a new server is watched before it counts as running: one whose card is missing is accepted by
     * {@code server create} and leaves {@code server list} when its process exits (NVIDIA's guide).
     */
    static final Duration SERVER_SETTLE = Duration.ofMillis(200);

    private static final List<String> SERVER_COLUMNS =
            List.of("name", "uid", "pid", "status", "pipe-directory", "allowed-devices", "context-ids");
    private static final List<String> NAMESPACE_COLUMNS = List.of(
            "name",
            "server",
            "server-status",
            "pinned-memory-limit",
            "active-thread-percentage",
            "client-priority",
            "pipe-directory");
    private static final List<String> CLIENT_COLUMNS = List.of("pid", "server", "device", "namespace", "cmd");
    private static final String PINNED = "pinned-memory-limit";
    private static final String THREADS = "active-thread-percentage";

    /**
     * One share as held: the MPS server and namespace that serve it, and the directory its containers are given
     * (empty until the namespace exists).
     */
    public record Held(MpsShare share, String server, String namespace, String directory) {}

    /** A card of a cgroup whose memory the agent holds. */
    private record Target(Path cgroup, String uuid) {}

    private final MpsControl control;
    private final MpsDirs dirs;
    private final Path records;
    private final Map<String, Integer> cardIndex = new HashMap<>();
    private final Optional<CgroupMemoryLimits> memory;
    private final long contextReserveMib;
    private final InstantSource clock;
    private final MpsDaemons.Listener listener;
    private DaemonProcess daemon = DaemonProcess.NONE;
    private final Map<String, Held> held = new LinkedHashMap<>();
    private final Set<String> confirmed = new HashSet<>(); // shares whose namespace this agent set or read back
    private final Map<String, Instant> verified = new HashMap<>(); // share key -> when its limits last read back
    private final Map<String, String> unreadable = new HashMap<>(); // share key -> the answer last logged
    private final Set<String> failing = new HashSet<>(); // servers that could not be started again, logged once
    private final Map<Target, Map<String, Long>> limits = new LinkedHashMap<>(); // -> MiB per share key
    private final Map<Target, Instant> limitVerified = new HashMap<>();
    private final Map<Long, Long> limitedClients = new HashMap<>(); // pid -> its start ticks, once limited
    private final Set<Long> unlimitable = new HashSet<>(); // pids whose limit could not be set, logged once

    private MpsNamespaces(
            MpsControl control,
            Path root,
            Hardware hardware,
            Optional<CgroupMemoryLimits> memory,
            long contextReserveMib,
            InstantSource clock,
            MpsDaemons.Listener listener) {
        this.control = control;
        this.dirs = new MpsDirs(root.resolve("v3").resolve("daemon"));
        this.records = root.resolve("v3").resolve("shares");
        this.memory = memory;
        this.contextReserveMib = contextReserveMib;
        this.clock = clock;
        this.listener = listener;
        for (Gpu g : hardware.gpus()) {
            cardIndex.put(g.uuid(), g.index());
        }
    }

    /**
     * The v3 layout under {@code root} (the MPS root): the daemon recorded there is adopted if it still runs, and so
     * is every recorded share; a daemon not running starts again, with every server and namespace, at the first
     * {@link #check}.
     *
     * @param memory            each container's memory also held by its cgroup, where the node has the dmem
     *                          controller ({@link CgroupMemoryLimits#backend}); empty for MPS's pinned limits alone
     * @param contextReserveMib MiB of each process's share kept for its CUDA context
     *                          ({@link IsolationConfig#contextReserveMib}): MPS's pinned limit leaves it out, the
     *                          cgroup's limit counts it
     */
    public static MpsNamespaces open(
            MpsControl control,
            Path root,
            Hardware hardware,
            Optional<CgroupMemoryLimits> memory,
            long contextReserveMib,
            InstantSource clock,
            MpsDaemons.Listener listener) {
        MpsNamespaces n = new MpsNamespaces(control, root, hardware, memory, contextReserveMib, clock, listener);
        try {
            Files.createDirectories(n.records);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create %s: %s; check that the MPS root is writable".formatted(n.records, e.getMessage()),
                    e);
        }
        n.adopt();
        return n;
    }

    private synchronized void adopt() {
        daemon = read(dirs.daemonRecord(), DaemonProcess.class)
                .filter(control::alive)
                .or(() -> Files.isDirectory(dirs.pipe())
                        ? DaemonProcess.find(
                                control.proc(), control.program().getFileName().toString(), dirs.pipe())
                        : Optional.empty())
                .orElse(DaemonProcess.NONE);
        try (Stream<Path> files = Files.list(records)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .sorted()
                    .toList()) {
                Optional<Held> h = read(f, Held.class);
                if (h.isEmpty()
                        || !f.getFileName().toString().equals(h.get().share().key() + ".json")) {
                    LOG.warn("MPS v3: {} is not a readable share record; left as it is", f);
                    continue;
                }
                held.put(h.get().share().key(), h.get());
                verified.put(h.get().share().key(), clock.instant());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read %s: %s".formatted(records, e.getMessage()), e);
        }
        if (daemon.pid() > 0 || !held.isEmpty()) {
            LOG.info(
                    "MPS v3: adopted the control daemon (pid {}{}) and {} shares",
                    daemon.pid(),
                    control.alive(daemon) ? "" : ", not running: it starts again at the first check",
                    held.size());
        }
    }

    @Override
    public IsolationConfig.Layout layout() {
        return IsolationConfig.Layout.V3;
    }

    /** The daemon's directories ({@code <root>/v3/daemon}). */
    public MpsDirs daemonDirs() {
        return dirs;
    }

    /** The shares held, each with its server, namespace and directory. */
    public synchronized List<Held> held() {
        return List.copyOf(held.values());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Starts the daemon if it is not running, creates the server of the share's cards if it is not there (and
     * refuses a server that leaves the server list at once: its clients would run unheld), creates the share's
     * namespace, sets its limits and reads them back. The same share again changes nothing; the same key with other
     * limits or cards is set again only while no process of the share runs.
     */
    @Override
    public synchronized MpsAccess hold(MpsShare share) {
        String server = serverName(share);
        String namespace = namespaceName(share.key());
        Held known = held.get(share.key());
        boolean running = control.alive(daemon);
        if (known != null
                && running
                && known.share().equals(share)
                && known.server().equals(server)
                && confirmed.contains(share.key())) {
            return access(known);
        }
        if (!running) {
            restartDaemon(
                    daemon.pid() > 0
                            ? "the MPS control daemon (pid %d) is gone".formatted(daemon.pid())
                            : "no MPS control daemon was running");
        }
        if (known != null && !known.share().equals(share)) {
            List<Long> clients = clients(known);
            if (!clients.isEmpty()) {
                throw new MpsException(
                        "MPS share %s (%s) runs processes %s under %s on %s; it cannot take other limits %s on %s"
                                .formatted(
                                        share.key(),
                                        share.holder(),
                                        clients,
                                        known.share().limits(),
                                        known.share().cards(),
                                        share.limits(),
                                        share.cards()));
            }
            if (!known.server().equals(server)) {
                held.remove(share.key());
                removeNamespace(known, false);
            }
        }
        Held h = new Held(
                share, server, namespace, known != null && known.server().equals(server) ? known.directory() : "");
        held.put(share.key(), h);
        write(record(share.key()), h);
        try {
            h = serve(h);
        } catch (MpsException | UncheckedIOException e) {
            if (known == null) {
                held.remove(share.key());
                removeNamespace(h, true);
                forget(share.key());
            }
            throw e;
        }
        held.put(share.key(), h);
        write(record(share.key()), h);
        confirmed.add(share.key());
        verified.put(share.key(), clock.instant());
        unreadable.remove(share.key());
        LOG.info(
                "MPS share {} ({}): namespace {} of server {} with {} on {}; its containers get {}",
                share.key(),
                share.holder(),
                namespace,
                server,
                share.limits(),
                share.cards(),
                h.directory());
        return access(h);
    }

    /** The share's server and namespace, made so; returns it with the namespace's directory. */
    private Held serve(Held h) {
        ensureServer(h.server(), cards(h.share()));
        ensureNamespace(h);
        return new Held(h.share(), h.server(), h.namespace(), directory(h));
    }

    private void ensureServer(String server, List<String> uuids) {
        if (servers().containsKey(server)) {
            return;
        }
        call("server", "create", server, "--uid=0", "--allowed-devices=" + String.join(",", uuids));
        boolean listed = servers().containsKey(server);
        if (listed) {
            sleep(SERVER_SETTLE);
            listed = servers().containsKey(server);
        }
        if (!listed) {
            try {
                call("server", "delete", server, "--force");
            } catch (MpsException e) {
                // gone already, as expected
            }
            throw new MpsException(("MPS server %s (cards %s) left the MPS daemon's server list right after it was"
                            + " created: its process exited, and a client aimed at it would run without MPS and"
                            + " without any limit. A card it names is missing or unusable; see %s and check the"
                            + " cards with nvidia-smi")
                    .formatted(server, uuids, dirs.log().resolve(server).resolve("server.log")));
        }
        failing.remove(server);
        LOG.info("MPS v3: server {} created on {}", server, uuids);
    }

    /** Creates the share's namespace if it is not there; sets its limits unless they read back as set. */
    private void ensureNamespace(Held h) {
        boolean exists = namespaces(h.server()).containsKey(h.namespace());
        if (!exists) {
            call("namespace", "create", h.namespace(), "--server=" + h.server());
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
                            get(h, PINNED),
                            get(h, THREADS),
                            pinnedMib(h.share()),
                            h.share().limits().threadPercent(),
                            h.share().key(),
                            h.share().holder()));
        }
    }

    /** Whether the namespace's limits read back, with NVIDIA's documented getters, as the share's. */
    private boolean limitsSet(Held h) {
        return samePinned(get(h, PINNED), h.share()).orElse(false)
                && samePercent(get(h, THREADS), h.share()).orElse(false);
    }

    private String get(Held h, String field) {
        return call("namespace", "get", h.namespace(), h.server(), field);
    }

    private void setLimits(Held h) {
        call(
                "namespace",
                "set",
                h.namespace(),
                "--server=" + h.server(),
                "--pinned-memory-limit=" + pinnedMib(h.share()) + "M",
                "--active-thread-percentage=" + h.share().limits().threadPercent());
    }

    /**
     * The namespace's directory as the daemon names it (its documented place, {@code <pipe>/<server>/<namespace>},
     * when it names none), which must be below the daemon's pipe directory and not the pipe directory or a server's.
     */
    private String directory(Held h) {
        String answer;
        try {
            answer = get(h, "pipe-directory").strip();
        } catch (MpsException e) {
            answer = ""; // the documented place, checked below
            LOG.debug(
                    "MPS namespace {} of server {}: no pipe-directory ({})", h.namespace(), h.server(), e.getMessage());
        }
        Path pipe = dirs.pipe().toAbsolutePath().normalize();
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
                            .formatted(h.namespace(), h.server(), dir, dirs.log()));
        }
        return dir.toString();
    }

    /** What names the directory itself (its inode), not its path; empty when it is not there. */
    private static Optional<Object> fileKey(String dir) {
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

    private static MpsAccess access(Held h) {
        return MpsAccess.of(h.directory(), null, Map.of());
    }

    /**
     * {@inheritDoc}
     *
     * <p>A daemon that is not running is started again with every server and namespace (every share's key is
     * returned); a server missing from the daemon's list is created again with its namespaces.
     */
    @Override
    public synchronized List<String> check() {
        if (!control.alive(daemon)) {
            if (held.isEmpty()) {
                return List.of(); // started with the first share
            }
            String why = daemon.pid() > 0
                    ? "the MPS control daemon (pid %d) is gone".formatted(daemon.pid())
                    : "no MPS control daemon was running";
            try {
                return restartDaemon(why);
            } catch (MpsException | UncheckedIOException e) {
                LOG.error("MPS v3: {}; starting it again failed: {}", why, e.getMessage());
                return List.of();
            }
        }
        Map<String, Map<String, String>> servers;
        try {
            servers = servers();
        } catch (MpsException e) {
            LOG.warn("MPS v3: cannot list the daemon's servers: {}", e.getMessage());
            return List.of();
        }
        List<String> restarted = new ArrayList<>();
        for (String server : serversHeld()) {
            if (!servers.containsKey(server)) {
                restarted.addAll(recreate(server, "its MPS server %s is gone".formatted(server)));
            }
        }
        return restarted;
    }

    /** Starts the daemon and recreates every server and namespace; returns the keys of the shares recreated. */
    private List<String> restartDaemon(String why) {
        launch();
        LOG.warn("MPS v3: {}; control daemon started again as pid {}", why, daemon.pid());
        List<String> keys = new ArrayList<>();
        for (String server : serversHeld()) {
            keys.addAll(recreate(server, why));
        }
        return keys;
    }

    private void launch() {
        dirs.create();
        clearPipe();
        daemon = control.launch(dirs, List.of(), Map.of(), 0, DAEMON_ARGS);
        write(dirs.daemonRecord(), daemon);
        limitedClients.clear();
    }

    /**
     * A daemon killed mid-run leaves its pid file and control socket behind; a new daemon must not find them. The
     * servers' and namespaces' directories stay, so that the containers' mounts of them still lead to the namespaces
     * created again there.
     */
    private void clearPipe() {
        try (Stream<Path> files = Files.list(dirs.pipe())) {
            for (Path f : files.filter(p -> !Files.isDirectory(p)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear %s: %s".formatted(dirs.pipe(), e.getMessage()), e);
        }
    }

    /** Creates the server again with its namespaces; returns the keys of the shares served again. */
    private List<String> recreate(String server, String why) {
        List<Held> on =
                held.values().stream().filter(h -> h.server().equals(server)).toList();
        try {
            ensureServer(server, cards(on.getFirst().share()));
        } catch (MpsException e) {
            if (failing.add(server)) {
                LOG.error(
                        "MPS v3: {}; creating it again failed, so shares {} are not held: {}",
                        why,
                        on.stream().map(h -> h.share().key()).toList(),
                        e.getMessage());
            }
            return List.of();
        }
        List<String> keys = new ArrayList<>();
        for (Held h : on) {
            try {
                Optional<Object> before = fileKey(h.directory());
                ensureNamespace(h);
                String dir = directory(h);
                String what = why;
                if (!h.directory().isEmpty()
                        && (!dir.equals(h.directory()) || before.isEmpty() || !before.equals(fileKey(dir)))) {
                    // a container's bind mount holds the directory it was given, not its path
                    what = why + "; its namespace's directory was made anew, so its running containers reach it"
                            + " only once they restart (until then their CUDA processes run outside MPS)";
                    LOG.error(
                            "MPS share {} ({}): namespace {} of server {} is in a new directory {}; containers"
                                    + " given {} before no longer reach it",
                            h.share().key(),
                            h.share().holder(),
                            h.namespace(),
                            server,
                            dir,
                            h.directory());
                }
                Held again = new Held(h.share(), h.server(), h.namespace(), dir);
                held.put(h.share().key(), again);
                write(record(h.share().key()), again);
                confirmed.add(h.share().key());
                verified.put(h.share().key(), clock.instant());
                keys.add(h.share().key());
                LOG.warn(
                        "MPS share {} ({}): {}; namespace {} of server {} created again with {}",
                        h.share().key(),
                        h.share().holder(),
                        what,
                        h.namespace(),
                        server,
                        h.share().limits());
                listener.restarted(h.share(), what);
            } catch (MpsException | UncheckedIOException e) {
                LOG.error(
                        "MPS share {} ({}): {}; creating its namespace again failed: {}",
                        h.share().key(),
                        h.share().holder(),
                        why,
                        e.getMessage());
            }
        }
        return keys;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Lists each server's namespaces once ({@code namespace list}); a namespace of a share whose pinned memory
     * limit or active thread percentage is not the share's is set again, and one that is gone is created again. Each
     * cgroup memory limit the agent set is read back too and set again if it changed. {@code servers} is not needed:
     * v3 keeps limits on namespaces, not on server processes.
     */
    @Override
    public synchronized List<LimitDrift> audit(Map<String, List<Long>> servers) {
        List<LimitDrift> drifts = new ArrayList<>();
        if (control.alive(daemon)) {
            for (String server : serversHeld()) {
                try {
                    drifts.addAll(auditServer(server));
                } catch (MpsException e) {
                    LOG.warn("MPS v3: cannot read the namespaces of server {} back: {}", server, e.getMessage());
                }
            }
        }
        memory.ifPresent(m -> drifts.addAll(auditMemory(m)));
        return drifts;
    }

    private List<LimitDrift> auditServer(String server) {
        Map<String, Map<String, String>> rows = namespaces(server);
        List<LimitDrift> drifts = new ArrayList<>();
        for (Held h : List.copyOf(held.values())) {
            if (!h.server().equals(server)) {
                continue;
            }
            MpsShare share = h.share();
            Instant since = verified.getOrDefault(share.key(), clock.instant());
            String pinned = pinnedMib(share) + "M";
            String percent = Integer.toString(share.limits().threadPercent());
            Map<String, String> row = rows.get(h.namespace());
            if (row == null) {
                ensureNamespace(h);
                LimitDrift d = new LimitDrift(
                        share, 0, "namespace " + h.namespace(), "(no such namespace)", pinned + ", " + percent, since);
                LOG.warn("MPS share {} ({}): {}", share.key(), share.holder(), d.describe());
                drifts.add(d);
                continue;
            }
            String foundPinned = row.containsKey(PINNED) ? row.get(PINNED) : get(h, PINNED);
            String foundPercent = row.containsKey(THREADS) ? row.get(THREADS) : get(h, THREADS);
            Optional<Boolean> samePinned = samePinned(foundPinned, share);
            Optional<Boolean> samePercent = samePercent(foundPercent, share);
            if (samePinned.isEmpty() || samePercent.isEmpty()) {
                String answer = foundPinned + " / " + foundPercent;
                if (!answer.equals(unreadable.put(share.key(), answer))) {
                    LOG.warn(
                            "MPS share {}: cannot read \"{}\" as namespace {}'s pinned memory limit and active thread"
                                    + " percentage; not checked",
                            share.key(),
                            answer,
                            h.namespace());
                }
            }
            List<LimitDrift> found = new ArrayList<>();
            if (!samePinned.orElse(true)) {
                found.add(new LimitDrift(
                        share, 0, "namespace %s %s".formatted(h.namespace(), PINNED), foundPinned, pinned, since));
            }
            if (!samePercent.orElse(true)) {
                found.add(new LimitDrift(
                        share, 0, "namespace %s %s".formatted(h.namespace(), THREADS), foundPercent, percent, since));
            }
            if (!found.isEmpty()) {
                setLimits(h);
                found.forEach(d -> LOG.warn("MPS share {} ({}): {}", share.key(), share.holder(), d.describe()));
                drifts.addAll(found);
            } else if (samePinned.isPresent() && samePercent.isPresent()) {
                verified.put(share.key(), clock.instant());
            }
        }
        return drifts;
    }

    private List<LimitDrift> auditMemory(CgroupMemoryLimits m) {
        limitedClients
                .entrySet()
                .removeIf(e -> DaemonProcess.of(control.proc(), e.getKey())
                        .map(p -> p.startTicks() != e.getValue())
                        .orElse(true));
        unlimitable.removeIf(pid -> DaemonProcess.of(control.proc(), pid).isEmpty());
        List<LimitDrift> drifts = new ArrayList<>();
        for (Target t : List.copyOf(limits.keySet())) {
            long mib = sum(limits.get(t));
            Optional<Long> found;
            try {
                found = m.limitMib(t.cgroup(), t.uuid());
            } catch (MpsException e) {
                limits.remove(t); // the cgroup is gone with its container
                limitVerified.remove(t);
                continue;
            }
            if (found.equals(Optional.of(mib))) {
                limitVerified.put(t, clock.instant());
                continue;
            }
            Held owner = held.get(limits.get(t).keySet().iterator().next());
            try {
                m.hold(t.cgroup(), t.uuid(), mib);
                LimitDrift d = new LimitDrift(
                        owner.share(),
                        0,
                        "dmem.max " + m.regionOf(t.uuid()),
                        found.map(v -> v + " MiB").orElse("max"),
                        mib + " MiB",
                        limitVerified.getOrDefault(t, clock.instant()));
                LOG.warn(
                        "MPS share {} ({}): cgroup {}: {}",
                        owner.share().key(),
                        owner.share().holder(),
                        t.cgroup(),
                        d.describe());
                drifts.add(d);
                limitVerified.put(t, clock.instant());
            } catch (MpsException e) {
                LOG.warn(
                        "MPS share {}: the memory limit of cgroup {} on {} is {}, not {} MiB, and setting it again"
                                + " failed: {}",
                        owner.share().key(),
                        t.cgroup(),
                        t.uuid(),
                        found.map(v -> v + " MiB").orElse("max"),
                        mib,
                        e.getMessage());
            }
        }
        return drifts;
    }

    @Override
    public synchronized List<MpsShare> units() {
        return shares();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The server of the share's cards ({@code server get <server> pid}) with the clients of the share's namespace
     * ({@code client list}); each client's cgroup is held to the share's memory the first time it is seen.
     */
    @Override
    public synchronized Map<Long, List<Long>> processes(MpsShare unit) {
        Held h = held.get(unit.key());
        if (h == null || !control.alive(daemon)) {
            return Map.of();
        }
        List<Long> clients = clients(h);
        memory.ifPresent(m -> clients.forEach(pid -> limit(m, h, pid)));
        long server = MpsAnswers.pids(call("server", "get", h.server(), "pid")).stream()
                .findFirst()
                .orElse(0L);
        if (server == 0 && clients.isEmpty()) {
            return Map.of();
        }
        return Map.of(server, clients);
    }

    /** The pids of the share's clients: those of its server whose namespace is the share's. */
    private List<Long> clients(Held h) {
        List<Long> out = new ArrayList<>();
        for (Map<String, String> row :
                rows(call("client", "list", "--server=" + h.server(), "--format=csv"), CLIENT_COLUMNS)) {
            if (h.namespace().equals(row.get("namespace"))) {
                OptionalLong pid = parseLong(row.get("pid"));
                if (pid.isPresent() && !out.contains(pid.getAsLong())) {
                    out.add(pid.getAsLong());
                }
            }
        }
        return out;
    }

    /** Holds the client's cgroup to the share's memory on each card, once per process. */
    private void limit(CgroupMemoryLimits m, Held h, long pid) {
        long ticks = DaemonProcess.of(control.proc(), pid)
                .map(DaemonProcess::startTicks)
                .orElse(-1L);
        if (ticks < 0 || Long.valueOf(ticks).equals(limitedClients.get(pid))) {
            return;
        }
        MpsShare share = h.share();
        try {
            Path cgroup = m.cgroup(pid)
                    .orElseThrow(() ->
                            new MpsException("process %d has no cgroup of its own that takes a limit".formatted(pid)));
            for (int i = 0; i < share.cards().size(); i++) {
                Target t = new Target(cgroup, share.cards().get(i));
                // a container may hold two shares of one card: its cgroup gets both
                Map<String, Long> by = limits.computeIfAbsent(t, k -> new LinkedHashMap<>());
                by.put(share.key(), containerMib(share, i));
                if (m.hold(cgroup, t.uuid(), sum(by))) {
                    LOG.info(
                            "MPS share {} ({}): process {}: cgroup {} held to {} MiB of {}",
                            share.key(),
                            share.holder(),
                            pid,
                            cgroup,
                            sum(by),
                            t.uuid());
                }
                limitVerified.put(t, clock.instant());
            }
            limitedClients.put(pid, ticks);
            unlimitable.remove(pid);
        } catch (MpsException e) {
            if (unlimitable.add(pid)) {
                LOG.warn(
                        "MPS share {} ({}): cannot hold the memory of its process {} by its cgroup; only its MPS"
                                + " pinned limit holds it: {}",
                        share.key(),
                        share.holder(),
                        pid,
                        e.getMessage());
            }
        }
    }

    @Override
    public synchronized void terminate(MpsShare unit, long server, long client) {
        call("client", "terminate", Long.toString(client));
    }

    @Override
    public synchronized List<MpsShare> shares() {
        return held.values().stream().map(Held::share).toList();
    }

    @Override
    public synchronized List<String> retain(Predicate<MpsShare> stillHeld) {
        List<String> ended = new ArrayList<>();
        for (Held h : List.copyOf(held.values())) {
            if (!stillHeld.test(h.share())) {
                release(h);
                ended.add(h.share().key());
            }
        }
        return ended;
    }

    @Override
    public synchronized void release(String key) {
        Held h = held.get(key);
        if (h != null) {
            release(h);
        }
    }

    /**
     * Deletes the share's namespace (ending its clients), and its server once no share is left on it. Nothing is
     * reset on the containers' cgroups: their soft limit is 0, so they reserve nothing on their parents, and their
     * hard limit goes with the cgroup when kubelet removes it.
     */
    private void release(Held h) {
        held.remove(h.share().key());
        removeNamespace(h, false);
        forget(h.share().key());
        LOG.info(
                "MPS share {} ({}): nobody holds it any more; namespace {} of server {} deleted",
                h.share().key(),
                h.share().holder(),
                h.namespace(),
                h.server());
    }

    /**
     * Deletes the namespace, and its server if no share held now is on it.
     *
     * @param undo after a share's hold failed, when either may not exist: not a failure then
     */
    private void removeNamespace(Held h, boolean undo) {
        if (!control.alive(daemon)) {
            return;
        }
        try {
            call("namespace", "delete", h.namespace(), "--server=" + h.server(), "--force");
        } catch (MpsException e) {
            if (!undo) {
                LOG.warn("MPS share {}: deleting namespace {}: {}", h.share().key(), h.namespace(), e.getMessage());
            }
        }
        if (held.values().stream().noneMatch(o -> o.server().equals(h.server()))) {
            try {
                call("server", "delete", h.server(), "--force");
            } catch (MpsException e) {
                if (!undo) {
                    LOG.warn("MPS v3: deleting server {}: {}", h.server(), e.getMessage());
                }
            }
            failing.remove(h.server());
        }
    }

    /** Drops what the agent keeps of a share: its record, and its part of the cgroup limits. */
    private void forget(String key) {
        try {
            Files.deleteIfExists(record(key));
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", record(key), e.getMessage());
        }
        confirmed.remove(key);
        verified.remove(key);
        unreadable.remove(key);
        limits.values().forEach(by -> by.remove(key));
        limits.entrySet().removeIf(e -> e.getValue().isEmpty());
        limitVerified.keySet().retainAll(limits.keySet());
    }

    /** 1 while the node's control daemon runs, else 0. */
    @Override
    public int daemons() {
        DaemonProcess d;
        synchronized (this) {
            d = daemon;
        }
        return control.alive(d) ? 1 : 0;
    }

    // ------------------------------------------------------------------------------------------------ names

    /** The server of the share's cards: {@code card_<index>}, or {@code cards_<i>_<j>…} for several. */
    private String serverName(MpsShare share) {
        return serverName(indexes(share));
    }

    static String serverName(List<Integer> indexes) {
        List<Integer> sorted = indexes.stream().distinct().sorted().toList();
        String name = sorted.size() == 1
                ? "card_" + sorted.getFirst()
                : "cards_"
                        + String.join("_", sorted.stream().map(String::valueOf).toList());
        return name.length() <= 64 ? name : "cards_" + hash(name);
    }

    /**
     * The share's namespace: {@code s_} and its key with {@code _} for {@code -} (MPS names are lower-case letters,
     * digits and {@code _}, at most 64), a long key cut and ended with a hash of it.
     */
    static String namespaceName(String key) {
        String name = "s_" + key.replace('-', '_');
        return name.length() <= 64 ? name : name.substring(0, 47) + "_" + hash(key);
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Integer> indexes(MpsShare share) {
        List<Integer> out = new ArrayList<>();
        for (String uuid : share.cards()) {
            Integer i = cardIndex.get(uuid);
            if (i == null) {
                throw new MpsException("MPS share %s (%s) names card %s, which is not on this node"
                        .formatted(share.key(), share.holder(), uuid));
            }
            out.add(i);
        }
        return out;
    }

    /** The share's cards in index order: the server's allowed devices. */
    private List<String> cards(MpsShare share) {
        return share.cards().stream()
                .distinct()
                .sorted(Comparator.comparing(u -> cardIndex.getOrDefault(u, Integer.MAX_VALUE)))
                .toList();
    }

    private List<String> serversHeld() {
        return held.values().stream().map(Held::server).distinct().toList();
    }

    // ------------------------------------------------------------------------------------------------ limits

    /** The namespace's pinned memory limit: one value for every card, the share's smallest. */
    static long pinnedMib(MpsShare share) {
        return share.limits().memoryMib().stream()
                .mapToLong(Long::longValue)
                .min()
                .orElseThrow();
    }

    /** The share's memory on card {@code i} for its whole container, CUDA contexts included. */
    long containerMib(MpsShare share, int i) {
        return (share.limits().memoryMib().get(i) + contextReserveMib)
                * share.limits().processes();
    }

    private static long sum(Map<String, Long> byShare) {
        return byShare.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Optional<Boolean> samePinned(String answer, MpsShare share) {
        OptionalLong mib = MpsAnswers.mib(answer);
        return mib.isPresent() ? Optional.of(mib.getAsLong() == pinnedMib(share)) : Optional.empty();
    }

    private static Optional<Boolean> samePercent(String answer, MpsShare share) {
        OptionalDouble percent = MpsAnswers.percent(answer);
        return percent.isPresent()
                ? Optional.of(percent.getAsDouble() == share.limits().threadPercent())
                : Optional.empty();
    }

    // ------------------------------------------------------------------------------------------------ the daemon

    private String call(String... arguments) {
        List<String> args = new ArrayList<>(PROTOCOL);
        args.addAll(List.of(arguments));
        return control.call(dirs.pipe(), args);
    }

    /** The daemon's servers by name ({@code server list}). */
    private Map<String, Map<String, String>> servers() {
        return byName(rows(call("server", "list", "--format=csv"), SERVER_COLUMNS));
    }

    /** The server's namespaces by name ({@code namespace list}). */
    private Map<String, Map<String, String>> namespaces(String server) {
        return byName(rows(call("namespace", "list", "--server=" + server, "--format=csv"), NAMESPACE_COLUMNS));
    }

    private static Map<String, Map<String, String>> byName(List<Map<String, String>> rows) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Map<String, String> row : rows) {
            String name = row.get("name");
            if (name != null && !name.isEmpty()) {
                out.put(name, row);
            }
        }
        return out;
    }

    /**
     * A list the control program printed as CSV ({@code --format=csv}), each row as column → value. Columns are
     * taken from its header (lower-cased, spaces and {@code _} as {@code -}: {@code PINNED MEMORY LIMIT} is
     * {@code pinned-memory-limit}) when its first line starts with the first documented column, else in the
     * documented order. Fields may be quoted; a row with more fields than columns (a list with commas left unquoted)
     * gives the rest to its last column.
     */
    static List<Map<String, String>> rows(String csv, List<String> documented) {
        List<String> lines = csv.lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return List.of();
        }
        List<String> first = fields(lines.getFirst());
        boolean header = column(first.getFirst()).equals(documented.getFirst());
        List<String> columns =
                header ? first.stream().map(MpsNamespaces::column).toList() : documented;
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : lines.subList(header ? 1 : 0, lines.size())) {
            List<String> f = fields(line);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size() && i < f.size(); i++) {
                row.put(columns.get(i), i == columns.size() - 1 ? String.join(",", f.subList(i, f.size())) : f.get(i));
            }
            out.add(row);
        }
        return out;
    }

    private static String column(String header) {
        return header.strip().toLowerCase(Locale.ROOT).replace(' ', '-').replace('_', '-');
    }

    /** One CSV line's fields (RFC 4180: quoted fields may hold commas and doubled quotes), each stripped. */
    static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    f.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    f.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(f.toString().strip());
                f.setLength(0);
            } else {
                f.append(c);
            }
        }
        out.add(f.toString().strip());
        return out;
    }

    private static OptionalLong parseLong(String s) {
        try {
            return s == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(s.strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    // ------------------------------------------------------------------------------------------------ records

    private Path record(String key) {
        return records.resolve(key + ".json");
    }

    private static <T> Optional<T> read(Path file, Class<T> type) {
        try {
            return Optional.of(JSON.readValue(file.toFile(), type));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static void write(Path file, Object value) {
        try {
            Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), value);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write %s: %s".formatted(file, e.getMessage()), e);
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpsException("interrupted while waiting for a new MPS server", e);
        }
    }
}
