package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.PodGpuRequests;
import io.elasticgpu.core.model.Request;
import io.elasticgpu.scheduler.cache.PodResources;

import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.List;

/**
 * A pod's GPU asks as placement-engine requests, one per container that asks, in the order they are placed: the
 * first carries the pod's CPU and memory, the others none, so that the pod is counted once. Immutable.
 *
 * <p>Init containers are placed like the others, beside the app containers rather than reusing their cards: that
 * counts more than kubelet will use, never less.
 */
public record PodAsk(List<GpuAsk> asks, List<Request> requests, PodResources.Totals totals) {

    public PodAsk {
        asks = List.copyOf(asks);
        requests = List.copyOf(requests);
    }

    /**
     * @throws io.elasticgpu.api.v1alpha1.InvalidGpuRequestException when the pod's asks are malformed
     */
    public static PodAsk of(Pod pod, PodGpuRequests.Units units) {
        List<GpuAsk> asks = PodGpuRequests.of(pod, units);
        PodResources.Totals totals = PodResources.of(pod);
        List<Request> requests = new ArrayList<>();
        long cpu = totals.cpuMilli();
        long memory = totals.memoryMib();
        for (GpuAsk a : asks) {
            requests.add(a.whole() ? Request.wholeCards(cpu, memory, a.cards())
                    : new Request(cpu, memory, a.cards(), a.milli(), a.memoryMib(), List.of()));
            cpu = 0;
            memory = 0;
        }
        return new PodAsk(asks, requests, totals);
    }

    /** A pod that asks no GPU, as the one request the placement engine places for it: its CPU and memory. */
    public PodAsk hostOnly() {
        return new PodAsk(List.of(), List.of(Request.cpuOnly(totals.cpuMilli(), totals.memoryMib())), totals);
    }

    public boolean asksGpu() {
        return !asks.isEmpty();
    }

    /** The same asks without CPU and memory: what binding checks, since kube-scheduler owns CPU and memory. */
    public List<Request> gpuOnly() {
        return requests.stream().map(r -> new Request(0, 0, r.cards(), r.milliPerCard(), r.memoryMibPerCard(), r.models()))
                .toList();
    }
}
