package io.elasticgpu.node.isolation;

import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent that stopped midway (a crash between a namespace's delete and its record's, a delete that failed)
 * left running on the MPS v3 daemon, deleted: a namespace named as the agent names them ({@code s_…}) that no share
 * record names on its server, with its clients, which would otherwise run under limits nobody reads back; and a
 * server named as the agent names them ({@code card_…}, {@code cards_…}) on which no namespace of a record is left.
 * A namespace named after a record that cannot be read is left as it is, as the record is. Namespaces and servers
 * named otherwise are not the agent's and are never touched.
 */
final class V3Orphans {

    private static final Logger LOG = LoggerFactory.getLogger(V3Orphans.class);

    private V3Orphans() {}

    /**
     * Deletes the namespaces and servers of the agent's that no record names.
     *
     * @param servers the daemon's servers by name, as just listed
     * @param held    the shares held, each by its record
     * @param keys    the key of every share record on disk, readable or not
     * @throws MpsException when the daemon's namespaces cannot be listed; nothing is deleted then
     */
    static void remove(
            V3Control v3, Map<String, Map<String, String>> servers, Collection<Held> held, Set<String> keys) {
        Set<String> recorded = new HashSet<>(); // <server>/<namespace> of each share held
        Set<String> kept = new HashSet<>(); // servers with a namespace of a record
        Set<String> heldKeys = new HashSet<>();
        for (Held h : held) {
            recorded.add(h.server() + "/" + h.namespace());
            kept.add(h.server());
            heldKeys.add(h.share().key());
        }
        Set<String> unreadable = new HashSet<>(); // namespaces named after a record that cannot be read
        keys.stream()
                .filter(k -> !heldKeys.contains(k))
                .map(V3Control::namespaceName)
                .forEach(unreadable::add);
        for (Map<String, String> row : v3.namespaces()) {
            String name = row.getOrDefault("name", "");
            String server = row.getOrDefault("server", "");
            if (!name.startsWith(V3Control.NAMESPACE_PREFIX) || server.isEmpty()) {
                continue;
            }
            if (recorded.contains(server + "/" + name) || unreadable.contains(name)) {
                kept.add(server);
                continue;
            }
            try {
                v3.deleteNamespace(name, server);
                LOG.warn(
                        "MPS v3: namespace {} of server {} is named as the agent names a share's but no share record"
                                + " names it (left by an agent that stopped midway); deleted with its clients",
                        name,
                        server);
            } catch (MpsException e) {
                LOG.warn(
                        "MPS v3: namespace {} of server {} has no share record; deleting it failed: {}",
                        name,
                        server,
                        e.getMessage());
            }
        }
        for (String server : servers.keySet()) {
            if (!V3Control.ourServer(server) || kept.contains(server)) {
                continue;
            }
            try {
                v3.deleteServer(server);
                LOG.warn(
                        "MPS v3: server {} is named as the agent names its servers but serves no share record (left"
                                + " by an agent that stopped midway); deleted with its clients",
                        server);
            } catch (MpsException e) {
                LOG.warn("MPS v3: server {} serves no share record; deleting it failed: {}", server, e.getMessage());
            }
        }
    }
}
