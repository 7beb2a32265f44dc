package io.elasticgpu.api.v1alpha1;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what a pod asks of GPUs, container by container, in any of the names of DESIGN.md: Elastic GPU's own
 * ({@code elasticgpu.io/gpu}, {@code gpu-memory}, {@code gpu-core}, {@code gpu-count}), NVIDIA's, HAMi's
 * ({@link HamiNames}), Aliyun's and Volcano's. Extended resources are read from limits (Kubernetes makes requests
 * equal them).
 */
public final class PodAsks {

    /**
     * How quantities read: the MiB in one unit of {@code elasticgpu.io/gpu-memory} and of {@code aliyun.com/gpu-mem},
     * and the names of Elastic GPU's own resources (configurable, the compatibility names are not).
     */
    public record Units(
            long memoryBlockMib, long aliyunUnitMib, String gpu, String gpuMemory, String gpuCore, String gpuCount) {
        public static final Units DEFAULT = new Units(
                1, 1024, ResourceNames.GPU, ResourceNames.GPU_MEMORY, ResourceNames.GPU_CORE, ResourceNames.GPU_COUNT);

        public Units {
            if (memoryBlockMib < 1 || aliyunUnitMib < 1) {
                throw new IllegalArgumentException(
                        "memory units must be >= 1 MiB, were %d and %d".formatted(memoryBlockMib, aliyunUnitMib));
            }
        }

        /**
         * Every name whose presence makes a pod Elastic GPU's business and that the node agent advertises to kubelet;
         * HAMi's qualifiers ({@link ResourceNames#HAMI_QUALIFIERS}) make it so too, but no device is allocated for
         * them.
         */
        public List<String> names() {
            return List.of(
                    gpu,
                    gpuMemory,
                    gpuCore,
                    gpuCount,
                    ResourceNames.NVIDIA_GPU,
                    ResourceNames.ALIYUN_GPU_MEM,
                    ResourceNames.VOLCANO_GPU_MEMORY,
                    ResourceNames.VOLCANO_GPU_NUMBER);
        }
    }

    private PodAsks() {}

    /**
     * The GPU asks of every container that has one: init containers and sidecars first, in spec order, then app
     * containers.
     *
     * @throws InvalidAskException when a container's asks contradict each other or are malformed
     */
    public static List<GpuAsk> of(Pod pod, Units units) {
        List<GpuAsk> asks = new ArrayList<>();
        if (pod.getSpec() == null) {
            return asks;
        }
        Map<String, String> annotations =
                pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
        String precision = annotations == null ? "" : annotations.getOrDefault(Annotations.TFLOPS_PRECISION, "");
        for (Container c : nullSafe(pod.getSpec().getInitContainers())) {
            Role role = "Always".equals(c.getRestartPolicy()) ? Role.SIDECAR : Role.INIT;
            container(c, role, units, precision).ifPresent(asks::add);
        }
        for (Container c : nullSafe(pod.getSpec().getContainers())) {
            container(c, Role.APP, units, precision).ifPresent(asks::add);
        }
        return asks;
    }

    /** Whether any container names any GPU resource at all, valid or not. */
    public static boolean asksGpu(Pod pod, Units units) {
        if (pod.getSpec() == null) {
            return false;
        }
        List<Container> all = containers(pod);
        List<String> names = new ArrayList<>(units.names());
        names.addAll(ResourceNames.HAMI_QUALIFIERS);
        names.add(ResourceNames.GPU_TFLOPS);
        return all.stream()
                .anyMatch(c -> names.stream().anyMatch(n -> gpuQuantities(c).containsKey(n)));
    }

    /** Init containers (sidecars among them), then app containers, in spec order: the order kubelet allocates in. */
    public static List<Container> containers(Pod pod) {
        List<Container> all = new ArrayList<>();
        if (pod.getSpec() != null) {
            all.addAll(nullSafe(pod.getSpec().getInitContainers()));
            all.addAll(nullSafe(pod.getSpec().getContainers()));
        }
        return all;
    }

    private static java.util.Optional<GpuAsk> container(Container c, Role role, Units units, String precision) {
        Map<String, Quantity> q = gpuQuantities(c);
        String name = c.getName();
        long gpu = count(q, units.gpu(), name);
        long memory = count(q, units.gpuMemory(), name);
        long core = count(q, units.gpuCore(), name);
        long cardCount = count(q, units.gpuCount(), name);
        long tflops = tflops(q, name);
        long nvidia = count(q, ResourceNames.NVIDIA_GPU, name);
        long hamiMemory = count(q, ResourceNames.HAMI_GPU_MEMORY, name);
        long hamiPercent = count(q, ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE, name);
        long hamiCores = count(q, ResourceNames.HAMI_GPU_CORES, name);
        long aliyun = count(q, ResourceNames.ALIYUN_GPU_MEM, name);
        long volcanoMemory = count(q, ResourceNames.VOLCANO_GPU_MEMORY, name);
        long volcanoNumber = count(q, ResourceNames.VOLCANO_GPU_NUMBER, name);
        List<String> families = new ArrayList<>();
        if (gpu + memory + core + cardCount + tflops > 0) {
            families.add("elasticgpu.io");
        }
        if (nvidia + hamiMemory + hamiPercent + hamiCores > 0) {
            families.add("nvidia.com");
        }
        if (aliyun > 0) {
            families.add("aliyun.com");
        }
        if (volcanoMemory + volcanoNumber > 0) {
            families.add("volcano.sh");
        }
        if (families.isEmpty()) {
            return java.util.Optional.empty();
        }
        if (name == null
                || name.isBlank()) { // the API server refuses such a pod; an extender request may still carry one
            throw new InvalidAskException(
                    "a container without a name asks GPUs by the names of %s; every container needs a name"
                            .formatted(String.join(" and ", families)));
        }
        if (families.size() > 1) {
            throw new InvalidAskException(
                    "container %s asks GPUs by the names of %s; use one family of names per container"
                            .formatted(name, String.join(" and ", families)));
        }
        return java.util.Optional.of(
                switch (families.getFirst()) {
                    case "nvidia.com" -> HamiNames.read(name, role, nvidia, hamiMemory, hamiPercent, hamiCores);
                    case "aliyun.com" -> GpuAsk.slice(name, role, 1, 0, aliyun * units.aliyunUnitMib(), Family.ALIYUN);
                    case "volcano.sh" -> volcano(name, role, volcanoMemory, volcanoNumber);
                    default ->
                        tflops > 0
                                ? tflops(name, role, units, gpu, memory, core, cardCount, tflops, precision)
                                : elastic(name, role, units, gpu, memory, core, cardCount);
                });
    }

    private static GpuAsk elastic(String name, Role role, Units u, long gpu, long memory, long core, long cardCount) {
        if (gpu > 0 && (memory > 0 || core > 0)) {
            throw new InvalidAskException(
                    ("container %s asks whole cards (%s: %d) and a slice (%s); ask for one or" + " the other")
                            .formatted(
                                    name,
                                    u.gpu(),
                                    gpu,
                                    memory > 0 ? u.gpuMemory() + ": " + memory : u.gpuCore() + ": " + core));
        }
        if (gpu > 0) {
            if (cardCount > 0) {
                throw new InvalidAskException("container %s asks %s with %s; %s counts whole cards already, drop %s"
                        .formatted(name, u.gpuCount(), u.gpu(), u.gpu(), u.gpuCount()));
            }
            return GpuAsk.whole(name, role, toInt(gpu), Family.ELASTIC_GPU);
        }
        if (memory == 0 && core == 0) {
            throw new InvalidAskException("container %s asks %s: %d without %s or %s; add the slice each card gives"
                    .formatted(name, u.gpuCount(), cardCount, u.gpuMemory(), u.gpuCore()));
        }
        if (core > 100) {
            throw new InvalidAskException(("container %s asks %s: %d; a slice is at most 100 (percent of one card);"
                            + " ask for %s: %d for whole cards")
                    .formatted(name, u.gpuCore(), core, u.gpu(), (core + 99) / 100));
        }
        int cards = cardCount > 0 ? toInt(cardCount) : 1;
        if (core == 100) {
            return GpuAsk.whole(name, role, cards, Family.ELASTIC_GPU); // a 100 % slice is the card
        }
        return GpuAsk.slice(name, role, cards, toInt(core * 10), memory * u.memoryBlockMib(), Family.ELASTIC_GPU);
    }

    private static GpuAsk tflops(
            String name,
            Role role,
            Units u,
            long gpu,
            long memory,
            long core,
            long cardCount,
            long tflops,
            String precision) {
        String t = ResourceNames.GPU_TFLOPS;
        if (gpu > 0) {
            throw new InvalidAskException("container %s asks whole cards (%s: %d) and %s: %d; ask for one or the other"
                    .formatted(name, u.gpu(), gpu, t, tflops));
        }
        if (core > 0) {
            throw new InvalidAskException(("container %s asks %s: %d and %s: %d; ask compute one way: drop %s to be"
                            + " given the share of whichever card it lands on")
                    .formatted(name, t, tflops, u.gpuCore(), core, u.gpuCore()));
        }
        if (memory == 0) {
            throw new InvalidAskException(("container %s asks %s: %d without %s; add the GPU memory it needs (the node"
                            + " agent hands out a card's share through its memory)")
                    .formatted(name, t, tflops, u.gpuMemory()));
        }
        int cards = cardCount > 0 ? toInt(cardCount) : 1;
        return GpuAsk.sliceTflops(
                name, role, cards, toInt(tflops), precision, memory * u.memoryBlockMib(), Family.ELASTIC_GPU);
    }

    /** {@link ResourceNames#GPU_TFLOPS}, which when present must be a whole number > 0. */
    private static long tflops(Map<String, Quantity> q, String container) {
        Quantity quantity = q.get(ResourceNames.GPU_TFLOPS);
        if (quantity == null) {
            return 0;
        }
        BigDecimal value;
        try {
            value = Quantity.getAmountInBytes(quantity);
        } catch (IllegalArgumentException | ArithmeticException e) {
            value = null;
        }
        if (value == null || value.signum() <= 0 || value.stripTrailingZeros().scale() > 0) {
            throw new InvalidAskException("container %s: %s must be a whole number of TFLOPS > 0, was %s"
                    .formatted(container, ResourceNames.GPU_TFLOPS, quantity));
        }
        return count(q, ResourceNames.GPU_TFLOPS, container);
    }

    private static GpuAsk volcano(String name, Role role, long memory, long number) {
        if (memory > 0 && number > 0) {
            throw new InvalidAskException(("container %s asks whole cards (%s: %d) and a slice (%s: %d); ask for one or"
                            + " the other")
                    .formatted(
                            name, ResourceNames.VOLCANO_GPU_NUMBER, number, ResourceNames.VOLCANO_GPU_MEMORY, memory));
        }
        return number > 0
                ? GpuAsk.whole(name, role, toInt(number), Family.VOLCANO)
                : GpuAsk.slice(name, role, 1, 0, memory, Family.VOLCANO);
    }

    /** Limits, else requests, of the GPU names only. */
    private static Map<String, Quantity> gpuQuantities(Container c) {
        Map<String, Quantity> out = new LinkedHashMap<>();
        if (c.getResources() == null) {
            return out;
        }
        if (c.getResources().getRequests() != null) {
            out.putAll(c.getResources().getRequests());
        }
        if (c.getResources().getLimits() != null) {
            out.putAll(c.getResources().getLimits());
        }
        return out;
    }

    private static long count(Map<String, Quantity> q, String resource, String container) {
        Quantity quantity = q.get(resource);
        if (quantity == null) {
            return 0;
        }
        BigDecimal value;
        try {
            value = Quantity.getAmountInBytes(quantity);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new InvalidAskException(
                    "container %s: %s: \"%s\" is not a quantity".formatted(container, resource, quantity));
        }
        if (value.signum() < 0 || value.stripTrailingZeros().scale() > 0) {
            throw new InvalidAskException(
                    "container %s: %s must be a whole number >= 0, was %s".formatted(container, resource, quantity));
        }
        if (value.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
            throw new InvalidAskException("container %s: %s: %s is too large".formatted(container, resource, quantity));
        }
        return value.setScale(0, RoundingMode.UNNECESSARY).longValueExact();
    }

    private static int toInt(long v) {
        return (int) v;
    }

    private static <T> List<T> nullSafe(List<T> list) {
        return list == null ? List.of() : list;
    }
}
