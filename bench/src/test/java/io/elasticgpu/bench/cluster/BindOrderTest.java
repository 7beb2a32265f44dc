package io.elasticgpu.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.simulator.trace.TracePod;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator fed the order kube-scheduler's binds landed in: a cluster that decided exactly as the simulator would
 * have in that order, but in an order other than the pods were created in, agrees with it on every pod.
 */
class BindOrderTest {

    @TempDir
    Path dir;

    private ReplayPlan plan() throws Exception {
        Files.write(dir.resolve("openb_node_list_gpu_node.csv"), List.of("sn,cpu_milli,memory_mib,gpu,model",
                "n0,64000,262144,2,T4", "n1,64000,262144,8,V100M32", "n2,32000,131072,4,P100"));
        Path pods = Files.write(dir.resolve("pods.csv"), List.of("name,cpu_milli,memory_mib,num_gpu,gpu_milli",
                "p0,1000,1024,1,500", "p1,1000,1024,4,1000", "p2,1000,1024,1,300", "p3,1000,1024,2,1000",
                "p4,1000,1024,1,700", "p5,1000,1024,1,250", "p6,1000,1024,1,1000", "p7,4000,8192,0,0"));
        return ReplayPlan.of(ReplayOptions.parse(List.of("--trace", pods.toString(), "--cut", "60"), dir));
    }

    /** A stream in which pod {@code i} of the plan was queued {@code i}-th and bound at {@code bindRank[i]}, -1 never. */
    private static PodStream.Streamed streamed(int[] bindRank) {
        long[] queued = new long[bindRank.length];
        long[] bound = new long[bindRank.length];
        for (int i = 0; i < bindRank.length; i++) {
            queued[i] = 1000 + i;
            bound[i] = bindRank[i] < 0 ? Long.MAX_VALUE : 5000 + 10L * bindRank[i];
        }
        return new PodStream.Streamed(queued, new long[0], bindRank.length, new long[0], bound);
    }

    @Test
    void boundPodsComeInTheOrderTheirBindsLandedAndThePodsNeverBoundLastInTheOrderTheyWereQueued() {
        List<TracePod> pods = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pods.add(new TracePod("p" + i, io.elasticgpu.core.model.Request.wholeCards(1000, 1024, 1)));
        }
        List<String> names = streamed(new int[] {2, -1, 0, -1, 1}).inBindOrder(pods).stream().map(TracePod::name).toList();
        assertThat(names).containsExactly("p2", "p4", "p0", "p1", "p3");
    }

    @Test
    void aClusterThatDecidedAsTheSimulatorInItsOwnOrderAgreesOnEveryPodInBindOrder() throws Exception {
        ReplayPlan plan = plan();
        List<TracePod> created = plan.pods();
        List<TracePod> decided = created.reversed(); // kube-scheduler's queue took them last first
        ReplayPlan.Simulated cluster = plan.simulate(decided);
        assertThat(cluster.nodes()).as("every pod fits, so none is left for the end").doesNotContainNull();
        Map<String, String> placedOn = new HashMap<>();
        int[] rank = new int[created.size()];
        for (int k = 0; k < decided.size(); k++) {
            placedOn.put(decided.get(k).name(), cluster.nodes().get(k));
            rank[created.indexOf(decided.get(k))] = k;
        }

        List<TracePod> order = streamed(rank).inBindOrder(created);
        assertThat(order).containsExactlyElementsOf(decided);
        ReplayPlan.Simulated simulated = plan.simulate(order);
        Agreement agreement = Agreement.of(order, simulated.nodes(), placedOn);
        assertThat(agreement.same()).isEqualTo(created.size());
        assertThat(agreement.firstDifference()).isEmpty();

        String elsewhere = placedOn.get(decided.get(3).name()).equals("n0") ? "n1" : "n0";
        placedOn.put(decided.get(3).name(), elsewhere);
        Agreement moved = Agreement.of(order, simulated.nodes(), placedOn);
        assertThat(moved.same()).isEqualTo(created.size() - 1);
        assertThat(moved.firstDifference()).startsWith("#3 " + decided.get(3).name() + ":");
    }
}
