package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The soak's pods: shapes drawn from the openb trace (CPU-only, slices, whole and multi-card), each asked in one of
 * the names users write: Elastic GPU's ({@code gpu-core}, {@code gpu-count}, {@code gpu}), NVIDIA's
 * ({@code nvidia.com/gpu}), Aliyun's ({@code gpu-mem} in GiB) and Volcano's ({@code gpu-memory} in MiB). Model
 * constraints are dropped (the soak's nodes are not the trace's models) and CPU and memory capped at what the
 * smallest node has, so that every pod fits somewhere on an empty cluster.
 */
final class PodShapes {

    /** The smallest card of the mix (a T4): a memory ask is sized against it so it fits any card. */
    private static final long SMALLEST_CARD_MIB = 15_360;

    private static final long MAX_CPU_MILLI = 16_000;
    private static final long MAX_MEMORY_MIB = 65_536;

    private final List<Ask> asks;
    private final String schedulerName;
    private final boolean claims;

    private PodShapes(List<Ask> asks, String schedulerName, boolean claims) {
        this.asks = asks;
        this.schedulerName = schedulerName;
        this.claims = claims;
    }

    /** Pods asking in resource names only. */
    static PodShapes from(Path podList, String schedulerName) {
        return new PodShapes(
                OpenbTrace.readPods(podList).stream().map(TracePod::ask).toList(), schedulerName, false);
    }

    /** Also pods whose one-card slice an ElasticGPUClaim asks for them (the webhook writes it into the pod). */
    static PodShapes withClaims(Path podList, String schedulerName) {
        return new PodShapes(
                OpenbTrace.readPods(podList).stream().map(TracePod::ask).toList(), schedulerName, true);
    }

    /**
     * A pod of a random shape named {@code name}, the GPU it asks in milli-cards (for the fill level), and the claim
     * (of the same name) to create before it, or null.
     */
    record Shaped(Pod pod, long milli, ElasticGPUClaim claim) {}

    Shaped next(String name, RandomGenerator random) {
        Ask ask = asks.get(random.nextInt(asks.size()));
        int vocabulary = random.nextInt(claims ? 5 : 4);
        boolean claimed = vocabulary == 4 && ask.needsCards() && ask.cards() == 1 && !ask.wholeCards();
        Map<String, Quantity> gpu = ask.needsCards() && !claimed ? gpu(ask, vocabulary) : Map.of();
        Map<String, Quantity> requests = new LinkedHashMap<>(gpu);
        requests.put("cpu", new Quantity(Math.min(ask.cpuMilli(), MAX_CPU_MILLI) + "m"));
        requests.put("memory", new Quantity(Math.min(ask.memoryMib(), MAX_MEMORY_MIB) + "Mi"));
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(SoakCluster.NAMESPACE)
                .withAnnotations(claimed ? Map.of(ClaimAnnotations.key("main"), name) : null)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withRequests(requests)
                .withLimits(gpu.isEmpty() ? null : gpu)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        ElasticGPUClaim claim = claimed
                ? ElasticGPUClaim.of(
                        SoakCluster.NAMESPACE,
                        name,
                        SoakCluster.CLAIM_CLASS,
                        Map.of(ResourceNames.GPU_CORE, count(Math.max(1, ask.milliPerCard() / 10))))
                : null;
        return new Shaped(pod, ask.needsCards() ? ask.totalMilli() : 0, claim);
    }

    /** The ask in one of four vocabularies; a vocabulary that cannot say the shape falls back to ours. */
    private static Map<String, Quantity> gpu(Ask ask, int vocabulary) {
        if (ask.wholeCards()) {
            return Map.of(vocabulary % 2 == 0 ? ResourceNames.GPU : ResourceNames.NVIDIA_GPU, count(ask.cards()));
        }
        long mib = SMALLEST_CARD_MIB * ask.milliPerCard() / 1000;
        if (vocabulary == 1 && ask.cards() == 1 && mib >= 1024) {
            return Map.of(ResourceNames.ALIYUN_GPU_MEM, count(mib / 1024));
        }
        if (vocabulary == 2 && ask.cards() == 1 && mib >= 1) {
            return Map.of(ResourceNames.VOLCANO_GPU_MEMORY, count(mib));
        }
        return ask.cards() > 1
                ? Map.of(
                        ResourceNames.GPU_CORE,
                        count(ask.milliPerCard() / 10),
                        ResourceNames.GPU_COUNT,
                        count(ask.cards()))
                : Map.of(ResourceNames.GPU_CORE, count(Math.max(1, ask.milliPerCard() / 10)));
    }

    private static Quantity count(long n) {
        return new Quantity(Long.toString(n));
    }
}
