package io.elasticgpu.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.bench.ClusterReplayCommand;
import io.elasticgpu.bench.Lab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input stops {@code bench/run cluster-replay} before any cluster starts, with a message naming what to fix. */
class ReplayInputTest {

    @TempDir
    Path dir;

    private Path write(String name, String... lines) throws Exception {
        return Files.write(dir.resolve(name), List.of(lines));
    }

    private Path nodes() throws Exception {
        return write(
                "openb_node_list_gpu_node.csv",
                "sn,cpu_milli,memory_mib,gpu,model",
                "n0,64000,262144,2,T4",
                "n1,64000,262144,8,V100M32");
    }

    private ReplayPlan plan(String... args) {
        return ReplayPlan.of(options(args));
    }

    private static ReplayOptions options(String... args) {
        return Lab.parse(new ClusterReplayCommand(), args).options();
    }

    @Test
    void aTraceWithABadRowNamesTheFileTheLineAndTheColumn() throws Exception {
        nodes();
        Path pods = write(
                "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,500", "p1,eight,1024,1,500");
        assertThatThrownBy(() -> plan("--trace", pods.toString()))
                .hasMessageContaining("pods.csv:3")
                .hasMessageContaining("cpu_milli");
    }

    @Test
    void anEventsFileNamingAnUnknownPodSaysWhichPod() throws Exception {
        nodes();
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,500");
        Path events = write(
                "events.csv",
                "idx,pod,result_node,arrived_gpu_milli,used_gpu_milli,frag_gpu_milli",
                "0,p0,0000-n0,0,0,0",
                "1,ghost,0001-n1,500,500,0");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--events", events.toString()))
                .hasMessageContaining("ghost");
    }

    @Test
    void aRecordedOrderOnFewerNodesKeepsItsPodOrderAndNodePriorityUpToTheirCut() throws Exception {
        Path list = write(
                "nodes.csv",
                "sn,cpu_milli,memory_mib,gpu,model",
                "a,64000,262144,1,T4",
                "b,64000,262144,1,T4",
                "c,64000,262144,1,T4",
                "d,64000,262144,1,T4");
        Path pods = write(
                "pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli",
                "p0,1000,1024,1,600",
                "p1,1000,1024,1,600",
                "p2,1000,1024,1,600",
                "p3,1000,1024,1,600");
        Path events = write(
                "events.csv",
                "idx,pod,result_node,arrived_gpu_milli,used_gpu_milli,frag_gpu_milli",
                "0,p3,0000-d,0,0,0",
                "1,p2,0001-c,600,600,0",
                "2,p1,0002-b,1200,1200,0",
                "3,p0,0003-a,1800,1800,0");
        ReplayPlan plan = plan(
                "--trace",
                pods.toString(),
                "--nodes",
                list.toString(),
                "--events",
                events.toString(),
                "--max-nodes",
                "2");
        // two of four nodes, evenly spread by name (a and c), in the recorded priority (c before a); their two cards
        // hold the first three pods of the recorded order (1,800 of 2,000 milli), the fourth would pass the cut
        assertThat(plan.nodes()).extracting(io.elasticgpu.core.model.Node::name).containsExactly("c", "a");
        assertThat(plan.pods())
                .extracting(io.elasticgpu.simulator.trace.TracePod::name)
                .containsExactly("p3", "p2", "p1");
    }

    @Test
    void aNodeListTheClusterCannotHoldNamesTheLine() throws Exception {
        Path list = write(
                "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model", "n0,64000,262144,2,T4", "n1,64000,262144,20,V100M32");
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,500");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--nodes", list.toString()))
                .hasMessageContaining("nodes.csv:3")
                .hasMessageContaining("1..16");
    }

    @Test
    void badOptionsSayWhatToChange() throws Exception {
        nodes();
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,500");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--cut", "500"))
                .hasMessage("--cut must be a number in 1..130, was 500");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--policy", "nope"))
                .hasMessageContaining("nope");
        assertThatThrownBy(() -> plan("--frobnicate", "1")).hasMessage("Unknown options: '--frobnicate', '1'");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--api", "cdi"))
                .hasMessage("--api must be device-plugin or dra, was \"cdi\"");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--warm-extender", "-1"))
                .hasMessage("--warm-extender must be a number in 0..100000, was -1");
        assertThatThrownBy(() -> plan("--trace", pods.toString(), "--warm-extender", "500", "--api", "dra"))
                .hasMessageStartingWith("--warm-extender works with --api device-plugin only");
        assertThatThrownBy(() -> plan("--trace", dir.resolve("nope.csv").toString()))
                .hasMessage("--trace: no such file " + dir.resolve("nope.csv")
                        + " (the default is ../shared's openb trace)");
        assertThat(options("--trace", pods.toString(), "--warm-extender", "500").warmExtender())
                .isEqualTo(500);
        assertThat(options("--trace", pods.toString(), "--extender-flag", "--policy=binpack")
                        .extenderFlags())
                .as("a flag's value may look like an option")
                .containsExactly("--policy=binpack");
    }

    @Test
    void theExtenderCountsOfAMeasurementLeaveOutThoseOfItsWarmUp() {
        var warmedUp = new ExtenderScrape.Counters(java.util.Map.of("filter", new double[] {100, 0.5}), 40, 2);
        var after = new ExtenderScrape.Counters(
                java.util.Map.of("filter", new double[] {300, 0.9}, "bind", new double[] {50, 5.0}), 70, 2);
        var verbs = after.verbsSince(warmedUp);
        assertThat(verbs.get("filter")).isEqualTo(new ReplayResult.VerbTime(200, 2.0));
        assertThat(verbs.get("bind")).isEqualTo(new ReplayResult.VerbTime(50, 100.0));
        assertThat(after.ledgerSince(warmedUp)).containsExactly(30, 0);
    }

    @Test
    void underDraAGpuPodAsksThroughAClaimOfItsOwnAFractionAsCoresWithOneMemoryBlock() {
        var fraction = new io.elasticgpu.simulator.trace.TracePod(
                "p0", new io.elasticgpu.core.model.Ask(1000, 1024, 2, 300, 0, java.util.List.of()));
        var claim = ReplayObjects.claim(fraction, "replay", 16);
        var exactly = claim.getSpec().getDevices().getRequests().getFirst().getExactly();
        assertThat(exactly.getDeviceClassName()).isEqualTo("gpu.elasticgpu.io");
        assertThat(exactly.getCount()).isEqualTo(2L);
        assertThat(exactly.getCapacity().getRequests())
                .containsEntry("cores", new io.fabric8.kubernetes.api.model.Quantity("30"))
                .containsEntry("memory", new io.fabric8.kubernetes.api.model.Quantity("16Mi"));
        var pod = ReplayObjects.pod(fraction, 0, "replay", "s", true);
        assertThat(pod.getSpec().getResourceClaims())
                .singleElement()
                .satisfies(c -> assertThat(c.getResourceClaimName()).isEqualTo("p0"));
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits())
                .as("no resource names")
                .isNullOrEmpty();

        var whole = new io.elasticgpu.simulator.trace.TracePod(
                "p1", io.elasticgpu.core.model.Ask.wholeCards(1000, 1024, 1));
        assertThat(ReplayObjects.claim(whole, "replay", 16)
                        .getSpec()
                        .getDevices()
                        .getRequests()
                        .getFirst()
                        .getExactly()
                        .getCapacity())
                .as("no capacity asked: the card's all")
                .isNull();
    }

    @Test
    void thePlanCutsAtTheArrivalLevelAndNamesNodesInPriorityOrder() throws Exception {
        nodes();
        Path pods = write(
                "pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli",
                "p0,1000,1024,1,1000",
                "p1,1000,1024,4,1000",
                "p2,1000,1024,1,500",
                "p3,1000,1024,2,1000",
                "p4,1000,1024,1,1000");
        ReplayPlan plan = plan("--trace", pods.toString(), "--cut", "50");
        long asked = plan.pods().stream().mapToLong(p -> p.ask().totalMilli()).sum();
        assertThat(100.0 * asked / plan.capacity()).isLessThanOrEqualTo(50);
        assertThat(plan.kubeName(0)).startsWith("p0000-");
        assertThat(ReplayPlan.traceName(plan.kubeName(1)))
                .isEqualTo(plan.nodes().get(1).name());
    }
}
