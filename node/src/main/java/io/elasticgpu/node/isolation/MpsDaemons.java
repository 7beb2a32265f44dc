package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Legacy MPS control daemons of one node, each in its own directory under the MPS root: one per share in the per-share
 * layout, one per card in the per-card layout ({@link CardDaemons}). The agent asks for a share's daemon before it
 * answers kubelet ({@link #ensure}); the daemon's limits are its defaults, set in its environment at launch and again
 * by command, so no process of the share can start under other limits. {@link #check} starts again a daemon that died,
 * with the same limits; {@link #audit} reads every limit back, the daemon's defaults and each running server's, and
 * puts back any that changed; {@link #retain} ends the daemons of shares nobody holds any more. Daemons outlive the
 * agent: a new agent adopts those it finds ({@link #open}) instead of starting a second one for a share.
 *
 * <p>Which process is a share's daemon is found and recorded by the agent where no container can write
 * ({@link DaemonProcess}, {@code daemon.json}); the pid file the daemon writes into its pipe directory only says that
 * it has started. Thread-safe; every method holds the lock for its whole work, which includes runs of the control
 * program (milliseconds each, bounded by its timeout).
 */
public final class MpsDaemons {

    private static final Logger LOG = LoggerFactory.getLogger(MpsDaemons.class);
    private static final List<String> DAEMON_ARGS = List.of("-d");

    /** One running daemon as the agent knows it. */
    public record Daemon(MpsShare share, MpsDirs dirs, DaemonProcess process, Instant started, int restarts) {
        public long pid() {
            return process.pid();
        }
    }

    /** What the agent tells the cluster about the daemons (events and metrics). */
    public interface Listener {
        void restarted(MpsShare share, String why);

        Listener NONE = (share, why) -> {};
    }

    private final MpsControl control;
    private final Path root;
    private final InstantSource clock;
    private final Listener listener;
    private final Map<String, Daemon> daemons = new LinkedHashMap<>();
    private final DaemonLimits limits;

    private MpsDaemons(MpsControl control, Path root, InstantSource clock, Listener listener) {
        this.control = control;
        this.root = root;
        this.clock = clock;
        this.listener = listener;
        this.limits = new DaemonLimits(control, clock);
    }

    /**
     * The daemons under {@code root}: every share directory with a readable record is adopted, its daemon started
     * again at the first check if it is not running.
     */
    public static MpsDaemons open(MpsControl control, Path root, InstantSource clock, Listener listener) {
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the MPS root %s: %s".formatted(root, e.getMessage()), e);
        }
        MpsDaemons d = new MpsDaemons(control, root, clock, listener);
        d.adopt();
        return d;
    }

    public Path root() {
        return root;
    }

    private synchronized void adopt() {
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                MpsDirs share = new MpsDirs(dir);
                Optional<MpsShare> record = Records.read(share.record(), MpsShare.class);
                if (record.isEmpty()) {
                    LOG.debug("MPS root {}: {} has no readable share.json; not a daemon's", root, dir.getFileName());
                    continue;
                }
                DaemonProcess process = Records.read(share.daemonRecord(), DaemonProcess.class)
                        .filter(control::alive)
                        .or(() -> DaemonProcess.find(
                                control.proc(), control.program().getFileName().toString(), share.pipe()))
                        .orElse(DaemonProcess.NONE);
                daemons.put(record.get().key(), new Daemon(record.get(), share, process, clock.instant(), 0));
                LOG.info(
                        "adopted the MPS daemon of {} ({}), pid {}{}",
                        record.get().key(),
                        record.get().holder(),
                        process.pid(),
                        control.alive(process) ? "" : ", not running: it starts again at the first check");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MPS root %s: %s".formatted(root, e.getMessage()), e);
        }
    }

    /**
     * The share's daemon, started if it is not running, with the share's limits. Asking again for a share with the
     * same limits changes nothing; with other limits (kubelet's later call for the same container named another
     * pod's shares) they are set again, which is allowed only while no process runs under the daemon.
     *
     * @return the daemon's directories
     * @throws MpsException when the daemon cannot be started or refuses the limits; kubelet then fails the container
     */
    public synchronized MpsDirs ensure(MpsShare share) {
        Daemon known = daemons.get(share.key());
        if (known != null && known.share().equals(share) && control.alive(known.process())) {
            return known.dirs();
        }
        if (known != null && control.alive(known.process())) {
            if (!servers(known).isEmpty()) {
                throw new MpsException(("MPS share %s (%s) runs processes under %s; it cannot take other limits %s")
                        .formatted(share.key(), share.holder(), known.share().limits(), share.limits()));
            }
            apply(known.dirs(), share);
            Records.write(known.dirs().record(), share);
            daemons.put(
                    share.key(), new Daemon(share, known.dirs(), known.process(), known.started(), known.restarts()));
            LOG.info("MPS share {} ({}): limits now {}", share.key(), share.holder(), share.limits());
            return known.dirs();
        }
        MpsDirs dirs = new MpsDirs(root.resolve(share.key()));
        dirs.create();
        Records.write(dirs.record(), share);
        Daemon started = launch(share, dirs, known == null ? 0 : known.restarts());
        daemons.put(share.key(), started);
        LOG.info(
                "MPS share {} ({}): daemon {} started with {} on {}",
                share.key(),
                share.holder(),
                started.pid(),
                share.limits(),
                share.cards());
        return dirs;
    }

    private Daemon launch(MpsShare share, MpsDirs dirs, int restarts) {
        clearPipe(dirs);
        DaemonProcess process =
                control.launch(dirs, share.cards(), share.daemonEnvironment(), share.shmMib(), DAEMON_ARGS);
        Records.write(dirs.daemonRecord(), process);
        apply(dirs, share);
        limits.verified(share.key());
        return new Daemon(share, dirs, process, clock.instant(), restarts);
    }

    /** Sets the limits by command and reads the compute limit back, so a daemon that ignored them is an error. */
    private void apply(MpsDirs dirs, MpsShare share) {
        for (String command : share.limitCommands()) {
            control.send(dirs.pipe(), command);
        }
        String percent = control.send(dirs.pipe(), "get_default_active_thread_percentage");
        if (MpsAnswers.percent(percent).orElse(-1) != share.limits().threadPercent()) {
            throw new MpsException(
                    "MPS share %s: the daemon reports a default active thread percentage of \"%s\", not %d"
                            .formatted(share.key(), percent, share.limits().threadPercent()));
        }
    }

    /**
     * A daemon killed mid-run leaves its pid file and control pipe behind; a new daemon must not find them. Processes
     * still connected to the old server keep the pipes they hold open. The directory itself stays, so that the
     * containers' mounts of it still lead to the new daemon.
     */
    private static void clearPipe(MpsDirs dirs) {
        try (Stream<Path> files = Files.list(dirs.pipe())) {
            for (Path f : files.toList()) {
                if (Files.isDirectory(f)) {
                    delete(f);
                } else {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear %s: %s".formatted(dirs.pipe(), e.getMessage()), e);
        }
    }

    /**
     * Starts again every daemon that is not running, with its share's limits.
     *
     * @return the keys of the shares whose daemon was started again
     */
    public synchronized List<String> check() {
        List<String> restarted = new ArrayList<>();
        for (Daemon d : List.copyOf(daemons.values())) {
            if (control.alive(d.process())) {
                continue;
            }
            String why =
                    d.pid() > 0 ? "its control daemon (pid %d) is gone".formatted(d.pid()) : "it had no control daemon";
            try {
                Daemon again = launch(d.share(), d.dirs(), d.restarts() + 1);
                daemons.put(d.share().key(), again);
                restarted.add(d.share().key());
                LOG.warn(
                        "MPS share {} ({}): {}; started again as pid {} with {}",
                        d.share().key(),
                        d.share().holder(),
                        why,
                        again.pid(),
                        d.share().limits());
                listener.restarted(d.share(), why);
            } catch (MpsException | UncheckedIOException e) {
                LOG.error(
                        "MPS share {} ({}): {}; starting it again failed: {}",
                        d.share().key(),
                        d.share().holder(),
                        why,
                        e.getMessage());
            }
        }
        return restarted;
    }

    /**
     * Reads back every limit of every running daemon: its defaults (what its next server gets) and, for each server in
     * {@code servers} (share key → the pids of its running MPS servers), that server's own; any that differs from what
     * the agent set is set again ({@link DaemonLimits}).
     *
     * @return the limits that had changed, each now set again
     */
    public synchronized List<LimitDrift> audit(Map<String, List<Long>> servers) {
        List<LimitDrift> drifts = new ArrayList<>();
        for (Daemon d : List.copyOf(daemons.values())) {
            if (!control.alive(d.process())) {
                continue; // check() starts it again with its limits
            }
            try {
                drifts.addAll(limits.audit(d, servers.getOrDefault(d.share().key(), List.of())));
            } catch (MpsException e) {
                LOG.warn(
                        "MPS share {}: cannot read its limits back: {}",
                        d.share().key(),
                        e.getMessage());
            }
        }
        return drifts;
    }

    /** Ends the daemons of the shares {@code held} says nobody holds any more; returns their keys. */
    public synchronized List<String> retain(Predicate<Daemon> held) {
        List<String> ended = new ArrayList<>();
        for (Daemon d : List.copyOf(daemons.values())) {
            if (!held.test(d)) {
                release(d);
                ended.add(d.share().key());
            }
        }
        return ended;
    }

    /** Ends the share's daemon and removes its directory; a share not known is nothing to do. */
    public synchronized void release(String key) {
        Daemon d = daemons.get(key);
        if (d != null) {
            release(d);
        }
    }

    private void release(Daemon d) {
        if (control.alive(d.process())) {
            try {
                control.send(d.dirs().pipe(), "quit");
            } catch (MpsException e) {
                LOG.warn(
                        "MPS share {}: quit failed ({}); ending pid {}",
                        d.share().key(),
                        e.getMessage(),
                        d.pid());
            }
            if (control.alive(d.process())) {
                ProcessHandle.of(d.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        try {
            control.unmountShm(d.dirs());
        } catch (MpsException e) {
            LOG.warn("MPS share {}: {}", d.share().key(), e.getMessage());
        }
        delete(d.dirs().share());
        daemons.remove(d.share().key());
        limits.forget(d.share().key());
        LOG.info(
                "MPS share {} ({}): nobody holds it any more; daemon ended and {} removed",
                d.share().key(),
                d.share().holder(),
                d.dirs().share());
    }

    /** The shares with a daemon, in the order they were first started. */
    public synchronized List<Daemon> daemons() {
        return List.copyOf(daemons.values());
    }

    public synchronized Optional<Daemon> daemon(String key) {
        return Optional.ofNullable(daemons.get(key));
    }

    /** Whether the share's daemon is the running process the agent started or adopted. */
    public boolean alive(Daemon d) {
        return control.alive(d.process());
    }

    /** The pids of the MPS servers the share's daemon runs now (none until its first process starts). */
    public List<Long> servers(Daemon d) {
        return MpsAnswers.pids(control.send(d.dirs().pipe(), "get_server_list"));
    }

    /** The pids of the processes connected to {@code server}. */
    public List<Long> clients(Daemon d, long server) {
        return MpsAnswers.pids(control.send(d.dirs().pipe(), "get_client_list " + server));
    }

    /** Ends the GPU work of one client process of the share (MPS's {@code terminate_client}). */
    public void terminate(Daemon d, long server, long client) {
        control.send(d.dirs().pipe(), "terminate_client %d %d".formatted(server, client));
    }

    private static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", dir, e.getMessage());
        }
    }
}
