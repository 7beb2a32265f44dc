package io.elasticgpu.node.isolation;

import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What died under the MPS v3 layout started again with the same limits, each round ({@link #check}) and whenever a
 * share is held while the daemon is down: a control daemon that is gone with every server and namespace, a server
 * missing from the daemon's list with its namespaces; each share served again is told to the listener, and said to
 * be unreachable by its running containers when its namespace's directory was made anew. What no record names is
 * deleted there too ({@link V3Orphans}). Not thread-safe: {@link MpsNamespaces} calls it under its lock.
 */
final class V3Restarts {

    private static final Logger LOG = LoggerFactory.getLogger(V3Restarts.class);

    private final V3Control v3;
    private final V3Records records;
    private final HeldShares shares;
    private final NamespaceSetup setup;
    private final NamespaceLimits limits;
    private final Optional<NamespaceMemory> memory;
    private final MpsDaemons.Listener listener;

    V3Restarts(
            V3Control v3,
            V3Records records,
            HeldShares shares,
            NamespaceSetup setup,
            NamespaceLimits limits,
            Optional<NamespaceMemory> memory,
            MpsDaemons.Listener listener) {
        this.v3 = v3;
        this.records = records;
        this.shares = shares;
        this.setup = setup;
        this.limits = limits;
        this.memory = memory;
        this.listener = listener;
    }

    /**
     * Starts the daemon again with every server and namespace if it is not running (every share's key is returned),
     * else deletes what no record names and creates again each server missing from the daemon's list, with its
     * namespaces.
     *
     * @return the keys of the shares served again
     */
    List<String> check() {
        if (!v3.alive()) {
            if (shares.isEmpty()) {
                return List.of(); // started with the first share
            }
            String why = whyDown();
            try {
                return restartDaemon(why);
            } catch (MpsException | UncheckedIOException e) {
                LOG.error("MPS v3: {}; starting it again failed: {}", why, e.getMessage());
                return List.of();
            }
        }
        Map<String, Map<String, String>> servers;
        try {
            servers = v3.servers();
        } catch (MpsException e) {
            LOG.warn("MPS v3: cannot list the daemon's servers: {}", e.getMessage());
            return List.of();
        }
        removeOrphans(servers);
        List<String> restarted = new ArrayList<>();
        for (String server : shares.servers()) {
            if (!servers.containsKey(server)) {
                restarted.addAll(recreate(server, "its MPS server %s is gone".formatted(server)));
            }
        }
        return restarted;
    }

    /** Deletes the namespaces and servers of the agent's that no record names; a failure to list them is logged. */
    void removeOrphans(Map<String, Map<String, String>> servers) {
        try {
            V3Orphans.remove(v3, servers, shares.all(), shares.recorded());
        } catch (MpsException e) {
            LOG.warn("MPS v3: cannot look for namespaces and servers no record names: {}", e.getMessage());
        }
    }

    /** Why the daemon is not running, for logs and events. */
    String whyDown() {
        DaemonProcess daemon = v3.daemon();
        return daemon.pid() > 0
                ? "the MPS control daemon (pid %d) is gone".formatted(daemon.pid())
                : "no MPS control daemon was running";
    }

    /** Starts the daemon and recreates every server and namespace; returns the keys of the shares recreated. */
    List<String> restartDaemon(String why) {
        DaemonProcess daemon = v3.launch();
        records.daemon(daemon);
        memory.ifPresent(NamespaceMemory::daemonStarted);
        LOG.warn("MPS v3: {}; control daemon started again as pid {}", why, daemon.pid());
        List<String> keys = new ArrayList<>();
        for (String server : shares.servers()) {
            keys.addAll(recreate(server, why));
        }
        return keys;
    }

    /** Creates the server again with its namespaces; returns the keys of the shares served again. */
    private List<String> recreate(String server, String why) {
        List<Held> on = shares.on(server);
        try {
            setup.ensureServer(server, setup.cards(on.getFirst().share()));
        } catch (MpsException e) {
            if (setup.failed(server)) {
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
                Optional<Object> before = NamespaceSetup.fileKey(h.directory());
                setup.ensureNamespace(h);
                String dir = setup.directory(h);
                String what = why;
                if (!h.directory().isEmpty()
                        && (!dir.equals(h.directory())
                                || before.isEmpty()
                                || !before.equals(NamespaceSetup.fileKey(dir)))) {
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
                shares.confirm(new Held(h.share(), h.server(), h.namespace(), dir));
                limits.verified(h.share().key());
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
}
