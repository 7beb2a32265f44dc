package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.ComputeAsk;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.scheduler.cache.PodResources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * A pod's GPU asks as the placement engine's asks, one per container that asks, in the order they are placed: the
 * first carries the pod's CPU and memory, the others none, so that the pod is counted once. Immutable.
 *
 * <p>Init containers are placed like the others, beside the app containers rather than reusing their cards: that
 * counts more than kubelet will use, never less.
 *
 * @param containerAsks what each container that asks GPUs asks, in the resource names it used
 * @param asks          the same as the placement engine places them, one per container, in the same order
 * @param totals        the pod's CPU and memory
 */
public record PodAsk(List<GpuAsk> containerAsks, List<Ask> asks, PodResources.Totals totals) {

    public PodAsk {
        containerAsks = List.copyOf(containerAsks);
        asks = List.copyOf(asks);
    }

    /**
     * @throws io.elasticgpu.api.v1alpha1.InvalidAskException when the pod's asks are malformed
     */
    public static PodAsk of(Pod pod, PodAsks.Units units) {
        return of(pod, units, ModelTable.shipped());
    }

    /**
     * @param table what asks in TFLOPS are converted with
     * @throws io.elasticgpu.api.v1alpha1.InvalidAskException when the pod's asks are malformed
     */
    public static PodAsk of(Pod pod, PodAsks.Units units, ModelTable table) {
        return of(PodAsks.of(pod, units), PodResources.of(pod), table);
    }

    /**
     * A pod's asks by resource names or, when it names none, through its ResourceClaims: the requests of its claims
     * that ask our cards and are not allocated yet ({@link DraAsks}). A claim not generated or not seen yet asks
     * nothing here; kube-scheduler's own DRA filter still holds the pod to it.
     *
     * @param claims a claim by namespace and name, as last seen
     * @throws io.elasticgpu.api.v1alpha1.InvalidAskException when the pod's asks are malformed
     */
    public static PodAsk of(Pod pod, PodAsks.Units units, BiFunction<String, String, Optional<ResourceClaim>> claims) {
        return of(pod, units, claims, ModelTable.shipped());
    }

    /** As {@link #of(Pod, PodAsks.Units, BiFunction)}, with TFLOPS converted by {@code table}. */
    public static PodAsk of(
            Pod pod,
            PodAsks.Units units,
            BiFunction<String, String, Optional<ResourceClaim>> claims,
            ModelTable table) {
        List<GpuAsk> containerAsks = PodAsks.of(pod, units);
        if (containerAsks.isEmpty()) {
            containerAsks = new ArrayList<>();
            for (DraAsks.PodClaim c : DraAsks.claims(pod)) {
                Optional<ResourceClaim> claim = c.claimName() == null
                        ? Optional.empty()
                        : claims.apply(pod.getMetadata().getNamespace(), c.claimName());
                if (claim.isPresent()) {
                    containerAsks.addAll(DraAsks.of(claim.get(), units.memoryBlockMib()));
                }
            }
        }
        return of(containerAsks, PodResources.of(pod), table);
    }

    /**
     * What a pod whose cards come through {@code claims} adds to the workload estimate (a claim no pod names yet: with
     * no CPU or memory): its CPU and memory with the claims' requests of ours, allocated or not; empty when they ask
     * none of ours. A claim asking {@code allocationMode: All} is placed by kube-scheduler alone and adds nothing.
     */
    static List<Ask> workload(List<ResourceClaim> claims, PodResources.Totals totals, PodAsks.Units units) {
        List<GpuAsk> containerAsks = new ArrayList<>();
        for (ResourceClaim claim : claims) {
            try {
                containerAsks.addAll(DraAsks.requested(claim, units.memoryBlockMib()));
            } catch (io.elasticgpu.api.v1alpha1.InvalidAskException e) {
                // allocationMode All: no part of the estimate
            }
        }
        return of(containerAsks, totals, ModelTable.shipped()).asks();
    }

    private static PodAsk of(List<GpuAsk> containerAsks, PodResources.Totals totals, ModelTable table) {
        List<Ask> asks = new ArrayList<>();
        long cpu = totals.cpuMilli();
        long memory = totals.memoryMib();
        for (GpuAsk containerAsk : containerAsks) {
            asks.add(
                    containerAsk.whole()
                            ? Ask.wholeCards(cpu, memory, containerAsk.cards())
                            : containerAsk.asksTflops()
                                    ? new Ask(
                                                    cpu,
                                                    memory,
                                                    containerAsk.cards(),
                                                    0,
                                                    containerAsk.memoryMib(),
                                                    List.of(),
                                                    0)
                                            .withCompute(compute(containerAsk, table))
                                    : new Ask(
                                            cpu,
                                            memory,
                                            containerAsk.cards(),
                                            containerAsk.milli(),
                                            containerAsk.memoryMib(),
                                            List.of(),
                                            containerAsk.memoryPercent()));
            cpu = 0;
            memory = 0;
        }
        return new PodAsk(containerAsks, asks, totals);
    }

    /** The share a container's TFLOPS take on each model of {@code table}; the webhook reads them the same way. */
    private static ComputeAsk compute(GpuAsk containerAsk, ModelTable table) {
        try {
            return table.ask(containerAsk.tflops(), containerAsk.precision());
        } catch (IllegalArgumentException e) {
            throw new InvalidAskException("container %s asks %s: %d: %s (annotation %s)"
                    .formatted(
                            containerAsk.container(),
                            ResourceNames.GPU_TFLOPS,
                            containerAsk.tflops(),
                            e.getMessage(),
                            Annotations.TFLOPS_PRECISION));
        }
    }

    /** A pod that asks no GPU, as the one ask the placement engine places for it: its CPU and memory. */
    public PodAsk hostOnly() {
        return new PodAsk(List.of(), List.of(Ask.cpuOnly(totals.cpuMilli(), totals.memoryMib())), totals);
    }

    public boolean asksGpu() {
        return !containerAsks.isEmpty();
    }

    /** Whether the cards come through ResourceClaims: kube-scheduler's DRA allocator picks them, and it binds. */
    public boolean viaClaims() {
        return containerAsks.stream().anyMatch(a -> a.family() == GpuAsk.Family.DRA);
    }

    /** The same asks without CPU and memory: what binding checks, since kube-scheduler owns CPU and memory. */
    public List<Ask> gpuOnly() {
        return asks.stream().map(Ask::withoutHost).toList();
    }
}
