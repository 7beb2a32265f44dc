package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.node.kubelet.ContainerResult;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node soak's invariants, checked after every step from three sources that must agree: what kubelet's device
 * manager told each running container (its environment), what the agent recorded in the pod (the allocation
 * annotation, phase {@code allocated}) and what the agent says it has handed out (its per-card metrics).
 */
final class NodeAudit {

    /** A pod kubelet admitted and runs: what the soak planned for it and what each container was told. */
    record Running(
            String uid, String name, List<Grant> placements, PodGrant planned, Map<String, ContainerResult> told) {}

    private final Violations violations;

    NodeAudit(Violations violations) {
        this.violations = violations;
    }

    /**
     * No card above its memory or compute among the running pods (each counted by what the agent recorded, or
     * planned until it has), and each container told exactly what the agent recorded for it.
     *
     * @param api the running pods as the API has them now, by uid
     */
    void step(Map<String, Running> running, Map<String, Pod> api) {
        long[] memory = new long[NodeRig.CARDS];
        int[] milli = new int[NodeRig.CARDS];
        for (Running r : running.values()) {
            Optional<PodGrant> recorded = recorded(api.get(r.uid()));
            PodGrant counted = recorded.orElse(r.planned());
            counted.containers()
                    .values()
                    .forEach(shares -> shares.forEach(s -> {
                        memory[s.card()] += s.memoryMib();
                        milli[s.card()] += s.milli();
                    }));
            recorded.ifPresent(a -> compareTold(r, a));
        }
        for (int card = 0; card < NodeRig.CARDS; card++) {
            if (memory[card] > NodeRig.CARD_MIB || milli[card] > 1000) {
                violations.add(
                        "card-over-capacity",
                        "card %d holds %d MiB and %d milli of %d MiB and 1000 milli: %s"
                                .formatted(card, memory[card], milli[card], NodeRig.CARD_MIB, running.keySet()));
            }
        }
    }

    /** Every running pod has its allocation recorded by now (the agent records within seconds). */
    void recordedAll(Map<String, Running> running, Map<String, Pod> api, String when) {
        running.values().stream()
                .filter(r -> recorded(api.get(r.uid())).isEmpty())
                .forEach(r -> violations.add(
                        "allocation-not-recorded",
                        "%s: pod %s runs with %s but its allocation is not recorded"
                                .formatted(when, r.name(), r.told().keySet())));
    }

    /** The memory the agent says it handed out on each card against what the running pods hold; empty if equal. */
    static Optional<String> ledgerDifference(
            Map<String, Running> running, Map<String, Pod> api, Map<Integer, Long> agent) {
        long[] held = new long[NodeRig.CARDS];
        for (Running r : running.values()) {
            recorded(api.get(r.uid()))
                    .orElse(r.planned())
                    .containers()
                    .values()
                    .forEach(shares -> shares.forEach(s -> held[s.card()] += s.memoryMib()));
        }
        long[] said = new long[NodeRig.CARDS];
        agent.forEach((card, mib) -> said[card] = mib);
        return Arrays.equals(held, said)
                ? Optional.empty()
                : Optional.of("the agent holds %s MiB per card, the running pods %s"
                        .formatted(Arrays.toString(said), Arrays.toString(held)));
    }

    private void compareTold(Running r, PodGrant recorded) {
        r.told().forEach((container, told) -> {
            List<Share> shares = recorded.containers().getOrDefault(container, List.of());
            Map<String, String> expected = expectedEnvironment(shares);
            Map<String, String> actual = new HashMap<>();
            expected.keySet().forEach(k -> actual.put(k, told.envs().get(k)));
            if (!told.envs().containsKey("ELASTICGPU_MEMORY_LIMIT_MIB")) {
                expected.remove("ELASTICGPU_MEMORY_LIMIT_MIB");
                actual.remove("ELASTICGPU_MEMORY_LIMIT_MIB");
            }
            if (!expected.equals(actual)) {
                violations.add(
                        "told-differs-from-recorded",
                        "pod %s container %s was told %s, recorded %s".formatted(r.name(), container, actual, shares));
            }
        });
    }

    private static Map<String, String> expectedEnvironment(List<Share> shares) {
        Map<String, String> env = new HashMap<>();
        env.put(
                "NVIDIA_VISIBLE_DEVICES",
                String.join(",", shares.stream().map(Share::uuid).toList()));
        env.put(
                "ELASTICGPU_CARD_INDEX",
                String.join(
                        ",",
                        shares.stream().map(s -> Integer.toString(s.card())).toList()));
        if (!shares.isEmpty()) {
            env.put(
                    "ELASTICGPU_MEMORY_LIMIT_MIB",
                    Long.toString(shares.getFirst().memoryMib()));
        }
        return env;
    }

    /** The allocation the agent recorded in the pod, once it has. */
    static Optional<PodGrant> recorded(Pod pod) {
        if (pod == null || !Annotations.allocated(pod)) {
            return Optional.empty();
        }
        return Optional.of(PodGrant.fromJson(pod.getMetadata().getAnnotations().get(Annotations.ALLOCATION)));
    }
}
