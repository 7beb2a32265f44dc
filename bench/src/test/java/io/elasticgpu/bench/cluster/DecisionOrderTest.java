package io.elasticgpu.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.bench.ClusterReplayCommand;
import io.elasticgpu.bench.Lab;
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
 * The simulator fed the order kube-scheduler's scheduling cycles decided pods in, read from its log: a cluster that
 * decided exactly as the simulator would have in that order, but not in the order the pods were created in, agrees
 * with it on every pod.
 */
class DecisionOrderTest {

    @TempDir
    Path dir;

    private ReplayPlan plan() throws Exception {
        Files.write(
                dir.resolve("openb_node_list_gpu_node.csv"),
                List.of(
                        "sn,cpu_milli,memory_mib,gpu,model",
                        "n0,64000,262144,2,T4",
                        "n1,64000,262144,8,V100M32",
                        "n2,32000,131072,4,P100"));
        Path pods = Files.write(
                dir.resolve("pods.csv"),
                List.of(
                        "name,cpu_milli,memory_mib,num_gpu,gpu_milli",
                        "p0,1000,1024,1,500",
                        "p1,1000,1024,4,1000",
                        "p2,1000,1024,1,300",
                        "p3,1000,1024,2,1000",
                        "p4,1000,1024,1,700",
                        "p5,1000,1024,1,250",
                        "p6,1000,1024,1,1000",
                        "p7,4000,8192,0,0"));
        return ReplayPlan.of(Lab.parse(new ClusterReplayCommand(), "--trace", pods.toString(), "--cut", "60")
                .options());
    }

    /** A stream in which pod {@code i} of {@code pods} became schedulable {@code i}-th. */
    private static PodStream.Streamed queuedInOrder(int pods) {
        long[] queued = new long[pods];
        for (int i = 0; i < pods; i++) {
            queued[i] = 1000 + i;
        }
        return new PodStream.Streamed(queued, new long[0], pods, new long[0]);
    }

    /** kube-scheduler's line for a cycle, as klog writes it at {@code --vmodule=schedule_one=3}. */
    private static String attempt(String namespace, String pod) {
        return "I1126 22:08:55.123456   41234 schedule_one.go:123] \"Attempting to schedule pod\" pod=\"%s/%s\""
                .formatted(namespace, pod);
    }

    @Test
    void aBoundPodIsDecidedByItsLastAttemptAndOnlyTheReplaysNamespaceCounts() throws Exception {
        Path log = Files.write(
                dir.resolve("kube-scheduler.log"),
                List.of(
                        "I1126 22:08:50.000001   41234 server.go:167] \"Starting Kubernetes Scheduler\" "
                                + "version=\"v1.36.3\"",
                        attempt("replay", "p1"),
                        attempt("bench-warm-up", "p0"),
                        attempt("replay", "p0"),
                        "I1126 22:08:55.2   41234 schedule_one.go:1325] \"Updating pod condition and nominated node "
                                + "name\" pod=\"replay/p0\"",
                        attempt("replay", "p2"),
                        attempt("replay", "p0")));
        assertThat(SchedulingCycles.lastAttempts(log, "replay"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("p1", 1L, "p2", 4L, "p0", 5L));
    }

    @Test
    void podsComeInTheOrderTheirCyclesDecidedThemAndThoseNeverBoundLastInTheOrderTheyWereQueued() {
        List<TracePod> pods = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pods.add(new TracePod("p" + i, io.elasticgpu.core.model.Ask.wholeCards(1000, 1024, 1)));
        }
        List<String> names = queuedInOrder(5).inDecisionOrder(pods, Map.of("p2", 7L, "p4", 9L, "p0", 12L)).stream()
                .map(TracePod::name)
                .toList();
        assertThat(names).containsExactly("p2", "p4", "p0", "p1", "p3");
    }

    @Test
    void aClusterThatDecidedAsTheSimulatorInItsOwnOrderAgreesOnEveryPodInThatOrder() throws Exception {
        ReplayPlan plan = plan();
        List<TracePod> created = plan.pods();
        List<TracePod> decided = created.reversed(); // kube-scheduler's queue took them last first
        ReplayPlan.Simulated cluster = plan.simulate(decided);
        assertThat(cluster.nodes())
                .as("every pod fits, so none is left for the end")
                .doesNotContainNull();
        Map<String, String> placedOn = new HashMap<>();
        Map<String, Long> cycles = new HashMap<>();
        for (int k = 0; k < decided.size(); k++) {
            placedOn.put(decided.get(k).name(), cluster.nodes().get(k));
            cycles.put(decided.get(k).name(), 100L + k);
        }

        List<TracePod> order = queuedInOrder(created.size()).inDecisionOrder(created, cycles);
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
