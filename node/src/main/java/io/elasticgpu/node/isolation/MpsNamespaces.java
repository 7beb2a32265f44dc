package io.elasticgpu.node.isolation;

import io.elasticgpu.node.discovery.Hardware;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
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
 * namespace; nothing in their environment holds a limit, and their pod keeps its own {@code /dev/shm}. Where the node
 * has the dmem cgroup controller, each container's memory on each card is also held by its cgroup
 * ({@link NamespaceMemory}).
 *
 * <p>On the host, under {@code <root>/v3/}: {@code daemon/} (the daemon's {@link MpsDirs}) and {@code shares/}
 * ({@link V3Records}), neither mounted into any container. A restarted agent adopts the running daemon and the
 * recorded shares ({@link #open}) and starts no second daemon; a namespace of the agent's ({@code s_…}) that no record
 * names, and a server of the agent's ({@code card_…}, {@code cards_…}) left with no namespace of a record, are what an
 * agent that stopped midway left running, and are deleted there and at each {@link #check}. Servers are created with
 * {@code --uid=0}: the daemon runs multi-user, so that pods run as any user.
 *
 * <p>This class is the layout: which share is held where ({@link HeldShares}), and what hold, audit, processes and
 * release do with the daemon. The daemon and its command line are {@link V3Control}'s, making a share's server and
 * namespace so {@link NamespaceSetup}'s, reading the namespaces' limits back {@link NamespaceLimits}', the cgroups'
 * {@link NamespaceMemory}'s, and starting again what died {@link V3Restarts}'. Thread-safe; every method holds the
 * lock for its whole work, which includes runs of the control program (milliseconds each, bounded by its timeout).
 */
public final class MpsNamespaces implements ShareServers {

    private static final Logger LOG = LoggerFactory.getLogger(MpsNamespaces.class);

    /**
     * One share as held: the MPS server and namespace that serve it, and the directory its containers are given
     * (empty until the namespace exists).
     */
    public record Held(MpsShare share, String server, String namespace, String directory) {}

    private final V3Control v3;
    private final V3Records records;
    private final HeldShares shares;
    private final NamespaceSetup setup;
    private final NamespaceLimits limits;
    private final Optional<NamespaceMemory> memory;
    private final V3Restarts restarts;

    private MpsNamespaces(
            MpsControl control,
            Path root,
            Hardware hardware,
            Optional<CgroupMemoryLimits> memory,
            long contextReserveMib,
            InstantSource clock,
            MpsDaemons.Listener listener) {
        MpsDirs dirs = new MpsDirs(root.resolve("v3").resolve("daemon"));
        this.v3 = new V3Control(control, dirs);
        this.records = new V3Records(dirs.daemonRecord(), root.resolve("v3").resolve("shares"));
        this.shares = new HeldShares(records);
        this.setup = new NamespaceSetup(v3, hardware);
        this.limits = new NamespaceLimits(v3, setup, clock);
        this.memory = memory.map(m -> new NamespaceMemory(m, control.proc(), contextReserveMib, clock));
        this.restarts = new V3Restarts(v3, records, shares, setup, limits, this.memory, listener);
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
        n.records.create();
        n.adopt();
        return n;
    }

    private synchronized void adopt() {
        v3.adopt(records.daemon());
        shares.adopt().forEach(h -> limits.verified(h.share().key()));
        DaemonProcess daemon = v3.daemon();
        if (daemon.pid() > 0 || !shares.isEmpty()) {
            LOG.info(
                    "MPS v3: adopted the control daemon (pid {}{}) and {} shares",
                    daemon.pid(),
                    v3.alive() ? "" : ", not running: it starts again at the first check",
                    shares.all().size());
        }
        if (v3.alive()) {
            try {
                restarts.removeOrphans(v3.servers());
            } catch (MpsException e) {
                LOG.warn("MPS v3: cannot list the daemon's servers: {}", e.getMessage());
            }
        }
    }

    @Override
    public IsolationConfig.Layout layout() {
        return IsolationConfig.Layout.V3;
    }

    /** The daemon's directories ({@code <root>/v3/daemon}). */
    public MpsDirs daemonDirs() {
        return v3.dirs();
    }

    /** The shares held, each with its server, namespace and directory. */
    public synchronized List<Held> held() {
        return shares.all();
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
        String server = setup.serverName(share);
        String namespace = V3Control.namespaceName(share.key());
        Held known = shares.get(share.key());
        boolean running = v3.alive();
        if (known != null
                && running
                && known.share().equals(share)
                && known.server().equals(server)
                && shares.confirmed(share.key())) {
            return access(known);
        }
        if (!running) {
            restarts.restartDaemon(restarts.whyDown());
        }
        if (known != null && !known.share().equals(share)) {
            List<Long> clients = v3.clients(known.server(), known.namespace());
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
                shares.remove(share.key());
                removeNamespace(known, false);
            }
        }
        Held h = new Held(
                share, server, namespace, known != null && known.server().equals(server) ? known.directory() : "");
        shares.put(h);
        try {
            h = serve(h);
        } catch (MpsException | UncheckedIOException e) {
            if (known == null) {
                shares.remove(share.key());
                removeNamespace(h, true);
                forget(share.key());
            }
            throw e;
        }
        shares.confirm(h);
        limits.held(share.key());
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
        setup.ensureServer(h.server(), setup.cards(h.share()));
        setup.ensureNamespace(h);
        return new Held(h.share(), h.server(), h.namespace(), setup.directory(h));
    }

    private static MpsAccess access(Held h) {
        return MpsAccess.of(h.directory(), null, Map.of());
    }

    /**
     * {@inheritDoc}
     *
     * <p>A daemon that is not running is started again with every server and namespace (every share's key is
     * returned); a server missing from the daemon's list is created again with its namespaces. A namespace or server
     * of the agent's that no record names is deleted.
     */
    @Override
    public synchronized List<String> check() {
        return restarts.check();
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
        if (v3.alive()) {
            for (String server : shares.servers()) {
                try {
                    drifts.addAll(limits.audit(server, shares.on(server)));
                } catch (MpsException e) {
                    LOG.warn("MPS v3: cannot read the namespaces of server {} back: {}", server, e.getMessage());
                }
            }
        }
        memory.ifPresent(m -> drifts.addAll(m.audit(key -> shares.get(key).share())));
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
        Held h = shares.get(unit.key());
        if (h == null || !v3.alive()) {
            return Map.of();
        }
        List<Long> clients = v3.clients(h.server(), h.namespace());
        memory.ifPresent(m -> clients.forEach(pid -> m.limit(h.share(), pid)));
        long server = v3.serverPid(h.server());
        if (server == 0 && clients.isEmpty()) {
            return Map.of();
        }
        return Map.of(server, clients);
    }

    @Override
    public synchronized void terminate(MpsShare unit, long server, long client) {
        v3.terminate(client);
    }

    @Override
    public synchronized List<MpsShare> shares() {
        return shares.all().stream().map(Held::share).toList();
    }

    @Override
    public synchronized List<String> retain(Predicate<MpsShare> stillHeld) {
        List<String> ended = new ArrayList<>();
        for (Held h : shares.all()) {
            if (!stillHeld.test(h.share())) {
                release(h);
                ended.add(h.share().key());
            }
        }
        return ended;
    }

    @Override
    public synchronized void release(String key) {
        Held h = shares.get(key);
        if (h != null) {
            release(h);
        }
    }

    /**
     * Deletes the share's namespace (ending its clients), and its server once no share is left on it. Nothing is
     * reset on the containers' cgroups ({@link NamespaceMemory}).
     */
    private void release(Held h) {
        shares.remove(h.share().key());
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
        if (!v3.alive()) {
            return;
        }
        try {
            v3.deleteNamespace(h.namespace(), h.server());
        } catch (MpsException e) {
            if (!undo) {
                LOG.warn("MPS share {}: deleting namespace {}: {}", h.share().key(), h.namespace(), e.getMessage());
            }
        }
        if (shares.on(h.server()).isEmpty()) {
            try {
                v3.deleteServer(h.server());
            } catch (MpsException e) {
                if (!undo) {
                    LOG.warn("MPS v3: deleting server {}: {}", h.server(), e.getMessage());
                }
            }
            setup.deleted(h.server());
        }
    }

    /** Drops what the agent keeps of a share: its record, and its part of the cgroup limits. */
    private void forget(String key) {
        shares.forget(key);
        limits.forget(key);
        memory.ifPresent(m -> m.forget(key));
    }

    /** 1 while the node's control daemon runs, else 0. */
    @Override
    public int daemons() {
        return v3.alive() ? 1 : 0;
    }
}
