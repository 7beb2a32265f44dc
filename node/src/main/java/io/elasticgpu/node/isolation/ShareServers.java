package io.elasticgpu.node.isolation;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The MPS servers that hold a node's shares, in one layout ({@link IsolationConfig.Layout}): daemons per share
 * ({@link MpsDaemons} as {@link ShareDaemons}), daemons per card ({@link CardDaemons}), or MPS v3's namespaces
 * ({@link MpsNamespaces}). {@link MpsIsolation} asks one of them to hold each share before kubelet is answered, and
 * every round to start again what died, read every limit back, list each share's processes and end those it must.
 * Implementations are thread-safe.
 *
 * <p>A <em>unit</em> is what one set of MPS servers serves, whose processes are counted together: a share in the
 * per-share layout and with v3 namespaces, a card (with every share on it) in the per-card layout.
 */
public interface ShareServers {

    /** The layout this is. */
    IsolationConfig.Layout layout();

    /**
     * Holds the share from now on: its server is running with its limits before this returns.
     *
     * @return what the share's containers are given to reach it
     * @throws MpsException when it cannot be held; kubelet then fails the container rather than run it unheld
     */
    MpsAccess hold(MpsShare share);

    /** Starts again whatever died, with the same limits; returns the keys of the shares whose server was restarted. */
    List<String> check();

    /**
     * Reads back every limit and sets again any that changed.
     *
     * @param servers unit key → the pids of its running MPS servers, as the last round found them
     */
    List<LimitDrift> audit(Map<String, List<Long>> servers);

    /** The units served now, each as the share whose limits its processes run under. */
    List<MpsShare> units();

    /** The unit's running MPS servers, each with the pids of its client processes. */
    Map<Long, List<Long>> processes(MpsShare unit);

    /** Ends the GPU work of one client process of the unit. */
    void terminate(MpsShare unit, long server, long client);

    /** The shares held now (in the per-card layout, the shares, not the cards). */
    List<MpsShare> shares();

    /** Stops holding the shares {@code held} says nobody holds any more; returns their keys. */
    List<String> retain(Predicate<MpsShare> held);

    /** Stops holding one share; a share not held is nothing to do. */
    void release(String key);

    /** How many MPS control daemons run for the node's shares. */
    int daemons();
}
