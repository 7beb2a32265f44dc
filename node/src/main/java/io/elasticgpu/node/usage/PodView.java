package io.elasticgpu.node.usage;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A pod on this node as usage needs it. Immutable.
 *
 * @param containerIds the runtime id of each of its running containers → the container's name
 * @param granted      container name → card index → MiB it was granted there (empty where the agent cannot tell,
 *                     e.g. a DRA claim's holder)
 */
public record PodView(
        String uid,
        String namespace,
        String name,
        Map<String, String> containerIds,
        Map<String, Map<Integer, Long>> granted) {

    public PodView {
        requireNonNull(uid, "uid");
        requireNonNull(namespace, "namespace");
        requireNonNull(name, "name");
        containerIds = Map.copyOf(containerIds);
        granted = Map.copyOf(granted);
    }
}
