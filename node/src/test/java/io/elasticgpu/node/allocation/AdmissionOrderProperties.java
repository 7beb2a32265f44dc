package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Rule 2 and rule 3 on one node: many pods of the same few shapes, planned by the extender within capacity,
 * admitted by kubelet in any order (some deleted before kubelet gets to them): no card ever holds more than its
 * memory, and what the agent finally records for each container is what that container was told.
 */
class AdmissionOrderProperties {

    private static final String MEM = "elasticgpu.io/gpu-memory";
    private static final long CARD = 16_384;

    @Property(tries = 200)
    void anyAdmissionOrderKeepsEveryCardWithinCapacityAndTheRecordTrue(
            @ForAll @Size(min = 1, max = 24) List<@IntRange(min = 0, max = 2) Integer> shapes, @ForAll long seed) {
        FakeNode node = new FakeNode(4, CARD);
        PlanAllocator allocator = new PlanAllocator(node, node, node, Topology.uniform(4, Link.UNKNOWN));
        long[] planned = new long[4];
        List<NodePod> pods = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            long memory = new long[] {4096, 8192, 2048}[shapes.get(i)];
            int card = firstFit(planned, memory);
            if (card < 0) {
                continue; // the extender would have left this pod pending
            }
            planned[card] += memory;
            NodePod p = node.slicePod("p" + i, i % 3, MEM, memory, card); // assume times collide on purpose
            pods.add(p);
            node.pods.add(p);
        }
        Random random = new Random(seed);
        List<NodePod> order = new ArrayList<>(pods);
        java.util.Collections.shuffle(order, random);
        Map<ContainerKey, List<Share>> told = new HashMap<>();
        for (NodePod admitted : order) {
            if (random.nextInt(8) == 0) {
                node.forget(admitted); // deleted before kubelet admitted it
                continue;
            }
            long memory = admitted.containers().getFirst().asks(MEM);
            List<String> ids = node.memoryIds(random.nextInt(4), (int) memory);
            ContainerGrant g = allocator.allocate(MEM, ids);
            ContainerKey really = admitted.key(admitted.containers().getFirst());
            node.record(really, MEM, ids);
            told.put(really, g.shares());
        }
        Map<ContainerKey, ContainerGrant> truth = allocator.reconcile();
        long[] held = new long[4];
        truth.values().forEach(g -> g.shares().forEach(s -> held[s.card()] += s.memoryMib()));
        for (long h : held) {
            assertThat(h).isLessThanOrEqualTo(CARD);
        }
        assertThat(truth.keySet()).isEqualTo(told.keySet());
        told.forEach((k, shares) ->
                assertThat(truth.get(k).shares()).as(k.toString()).isEqualTo(shares));
    }

    private static int firstFit(long[] used, long memory) {
        for (int c = 0; c < used.length; c++) {
            if (used[c] + memory <= CARD) {
                return c;
            }
        }
        return -1;
    }
}
