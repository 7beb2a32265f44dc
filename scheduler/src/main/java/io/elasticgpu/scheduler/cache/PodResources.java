package io.elasticgpu.scheduler.cache;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * A pod's CPU and memory requests as kubelet and kube-scheduler count them: the larger of (app containers plus
 * sidecars) and, for each init container, itself plus the sidecars started before it; plus the pod's overhead.
 */
public final class PodResources {

    private static final BigDecimal MIB = BigDecimal.valueOf(1L << 20);

    /** @param cpuMilli milli-cores; @param memoryMib MiB, rounded up */
    public record Totals(long cpuMilli, long memoryMib) {}

    private PodResources() {}

    public static Totals of(Pod pod) {
        if (pod.getSpec() == null) {
            return new Totals(0, 0);
        }
        long appCpu = 0;
        long appMem = 0;
        for (Container c : nullSafe(pod.getSpec().getContainers())) {
            appCpu += cpu(c);
            appMem += memory(c);
        }
        long sidecarCpu = 0;
        long sidecarMem = 0;
        long initCpu = 0;
        long initMem = 0;
        for (Container c : nullSafe(pod.getSpec().getInitContainers())) {
            if ("Always".equals(c.getRestartPolicy())) {
                sidecarCpu += cpu(c);
                sidecarMem += memory(c);
            } else {
                initCpu = Math.max(initCpu, cpu(c) + sidecarCpu);
                initMem = Math.max(initMem, memory(c) + sidecarMem);
            }
        }
        long cpu = Math.max(appCpu + sidecarCpu, initCpu);
        long mem = Math.max(appMem + sidecarMem, initMem);
        Map<String, Quantity> overhead = pod.getSpec().getOverhead();
        if (overhead != null) {
            cpu += milli(overhead.get("cpu"));
            mem += mib(overhead.get("memory"));
        }
        return new Totals(cpu, mem);
    }

    private static long cpu(Container c) {
        return milli(request(c, "cpu"));
    }

    private static long memory(Container c) {
        return mib(request(c, "memory"));
    }

    /** Requests, else limits (Kubernetes defaults the request to the limit). */
    private static Quantity request(Container c, String resource) {
        if (c.getResources() == null) {
            return null;
        }
        Quantity q = c.getResources().getRequests() == null
                ? null
                : c.getResources().getRequests().get(resource);
        if (q == null && c.getResources().getLimits() != null) {
            q = c.getResources().getLimits().get(resource);
        }
        return q;
    }

    static long milli(Quantity q) {
        return q == null
                ? 0
                : Quantity.getAmountInBytes(q)
                        .movePointRight(3)
                        .setScale(0, RoundingMode.CEILING)
                        .longValue();
    }

    static long mib(Quantity q) {
        return q == null
                ? 0
                : Quantity.getAmountInBytes(q)
                        .divide(MIB, 0, RoundingMode.CEILING)
                        .longValue();
    }

    private static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }
}
