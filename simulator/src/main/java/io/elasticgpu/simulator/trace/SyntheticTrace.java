package io.elasticgpu.simulator.trace;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Health;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * The cluster and workload {@code egpu simulate} replays when no trace is given: written by us, seeded, and shaped
 * like a mixed production cluster. 200 nodes and 1,000 cards of four kinds (NVSwitch A100 boxes, V100 boxes with
 * the hybrid cube-mesh NVLink, PCIe T4 and A10 servers) and 6,000 pods: CPU-only pods, compute slices (some
 * inference pods only on T4/A10), whole cards and 2-, 4- and 8-card jobs.
 */
public final class SyntheticTrace {

    public static final long DEFAULT_SEED = 2026;

    private SyntheticTrace() {}

    public static Trace generate(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        return new Trace("synthetic-" + seed, nodes(), pods(random, 6_000));
    }

    private static List<Node> nodes() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            nodes.add(node("a100-%02d".formatted(i), 128_000, 1_048_576, 8, "A100", 81_920, nvSwitch(8)));
        }
        for (int i = 0; i < 40; i++) {
            nodes.add(node("v100-%02d".formatted(i), 96_000, 786_432, 8, "V100M32", 32_768, hybridCubeMesh()));
        }
        for (int i = 0; i < 60; i++) {
            nodes.add(node("t4-%02d".formatted(i), 64_000, 262_144, 4, "T4", 15_360, twoSwitches()));
        }
        for (int i = 0; i < 60; i++) {
            nodes.add(node(
                    "a10-%02d".formatted(i),
                    32_000,
                    131_072,
                    2,
                    "A10",
                    24_576,
                    Topology.builder(2)
                            .link(0, 1, Link.of(LinkKind.HOST_BRIDGE))
                            .build()));
        }
        return nodes;
    }

    private static Node node(
            String name, long cpu, long memory, int gpus, String model, long gpuMemory, Topology topology) {
        List<Card> cards = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            cards.add(new Card(
                    i, "GPU-" + name + "-" + i, model, gpuMemory, Card.WHOLE, Health.HEALTHY, i < gpus / 2 ? 0 : 1));
        }
        return new Node(name, cpu, memory, OpenbTrace.MAX_PODS_PER_NODE, cards, Map.of("gpu.model", model), topology);
    }

    private static Topology nvSwitch(int cards) {
        Topology.Builder b = Topology.builder(cards);
        for (int i = 0; i < cards; i++) {
            for (int j = i + 1; j < cards; j++) {
                b.link(i, j, Link.nvlink(12));
            }
        }
        return b.build();
    }

    /** DGX-1: two quads fully linked inside, one link across to the mirror card, PCIe or SMP elsewhere. */
    private static Topology hybridCubeMesh() {
        Topology.Builder b = Topology.builder(8);
        for (int quad = 0; quad < 8; quad += 4) {
            for (int i = quad; i < quad + 4; i++) {
                for (int j = i + 1; j < quad + 4; j++) {
                    b.link(i, j, Link.nvlink(j == i + 1 ? 2 : 1));
                }
            }
        }
        for (int i = 0; i < 4; i++) {
            for (int j = 4; j < 8; j++) {
                b.link(i, j, j == i + 4 ? Link.nvlink(1) : Link.of(LinkKind.CROSS_SOCKET));
            }
        }
        return b.build();
    }

    private static Topology twoSwitches() {
        return Topology.builder(4)
                .link(0, 1, Link.of(LinkKind.PCIE_SWITCH))
                .link(2, 3, Link.of(LinkKind.PCIE_SWITCH))
                .link(0, 2, Link.of(LinkKind.CROSS_SOCKET))
                .link(0, 3, Link.of(LinkKind.CROSS_SOCKET))
                .link(1, 2, Link.of(LinkKind.CROSS_SOCKET))
                .link(1, 3, Link.of(LinkKind.CROSS_SOCKET))
                .build();
    }

    private static final int[] SLICES = {100, 200, 250, 300, 500, 700};

    private static List<TracePod> pods(RandomGenerator random, int count) {
        List<TracePod> pods = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            pods.add(new TracePod("syn-pod-%04d".formatted(i), ask(random)));
        }
        return pods;
    }

    private static Ask ask(RandomGenerator random) {
        double kind = random.nextDouble();
        long cpu = 1_000L * (2 + random.nextInt(15));
        long memory = cpu * 4;
        if (kind < 0.15) {
            return Ask.cpuOnly(cpu, memory);
        }
        if (kind < 0.50) {
            Ask sliceAsk = Ask.computeSlice(cpu / 2, memory / 2, SLICES[random.nextInt(SLICES.length)]);
            return random.nextDouble() < 0.3 ? sliceAsk.withModels(List.of("T4", "A10")) : sliceAsk;
        }
        int cards = kind < 0.80 ? 1 : kind < 0.88 ? 2 : kind < 0.94 ? 4 : 8;
        Ask wholeAsk = Ask.wholeCards(cpu * cards, memory * cards, cards);
        return cards >= 4 && random.nextDouble() < 0.5 ? wholeAsk.withModels(List.of("A100")) : wholeAsk;
    }
}
