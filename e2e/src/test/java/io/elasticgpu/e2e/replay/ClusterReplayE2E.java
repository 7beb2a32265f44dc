package io.elasticgpu.e2e.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.elasticgpu.bench.ClusterReplayCommand;
import io.elasticgpu.bench.Lab;
import io.elasticgpu.bench.cluster.ClusterReplay;
import io.elasticgpu.bench.cluster.ReplayResult;
import io.elasticgpu.localcluster.controlplane.Binaries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, reduced: the openb trace replayed through the real kube-scheduler and the extender as the Helm chart
 * configures them ({@code bench/run cluster-replay}), on 200 of its nodes (about 1,400 pods, our seed-42 order, to the
 * 100 % arrival cut), audited from the API. No card, CPU or memory may be over capacity, every bound GPU pod carries
 * its allocation, and the cluster must allocate at least as much GPU as the simulator on the creation order, less a
 * point, and at least as much as the simulator on the order kube-scheduler decided the pods in, less a fifth of a
 * point. The extender is first warmed up on 300 copies of the pods, scheduled and deleted: the nodes must be as
 * empty afterwards as before, or the measured pods would place worse than the simulator's.
 */
public class ClusterReplayE2E {

    private static final Path SHARED = Path.of(System.getProperty("egpu.shared", "../../shared"));

    @Test
    void aReducedReplayPlacesAsWellAsTheSimulatorAndOverCommitsNothing(@TempDir Path work) throws Exception {
        ReplayResult r = replayAudited(work, "--warm-extender", "300");
        assertThat(r.extenderWarmUpPods()).isEqualTo(300);
        // On the creation order (what the harness controls) within a point: kube-scheduler's queue takes the first
        // pods of a 200-node replay out of it (one CI run parted at pod #21 and fell 0.53 below it while deciding every
        // pod as the simulator does on the decision order), so the tight bound is the second. Given the order
        // kube-scheduler decided the pods in, the extender places as the placement engine does (on this trace every
        // pod alike, in CI and at 1,213 nodes); that bound leaves room for a rare late difference.
        assertNearSimulator(r, 1.0, 0.2);
    }

    /**
     * The cluster allocates at least as much GPU as the simulator on the creation order less {@code creationOrder}
     * points, and as the simulator on the order kube-scheduler decided the pods in less {@code decisionOrder} points.
     */
    public static void assertNearSimulator(ReplayResult r, double creationOrder, double decisionOrder) {
        assertThat(r.inClusterPct())
                .as("GPU allocated in the cluster against the simulator's %.2f %%", r.simulatorPct())
                .isGreaterThanOrEqualTo(r.simulatorPct() - creationOrder);
        assertThat(r.inClusterPct())
                .as(
                        "GPU allocated in the cluster against the simulator on kube-scheduler's decision "
                                + "order, %.2f %% (first difference: %s)",
                        r.decisionOrder().simulatorPct(), r.decisionOrder().firstDifference())
                .isGreaterThanOrEqualTo(r.decisionOrder().simulatorPct() - decisionOrder);
    }

    /**
     * The default trace on 200 of its nodes without the baseline, {@code options} added, checked for what must hold
     * on any path: most pods bound, no card, CPU or memory over capacity, every bound GPU pod's cards known, and the
     * order kube-scheduler decided the pods in read from its log.
     */
    public static ReplayResult replayAudited(Path work, String... options) throws Exception {
        Path trace = SHARED.resolve("traces/openb/openb_pod_list_default.csv");
        if (!Files.isRegularFile(trace)) {
            fail(trace
                    + " is absent: the replay needs the openb trace beside the checkout (../shared) or "
                    + "-Degpu.shared=DIR");
        }
        List<String> args =
                new ArrayList<>(List.of("--trace", trace.toString(), "--max-nodes", "200", "--no-baseline"));
        args.addAll(List.of(options));
        ReplayResult r = ClusterReplay.run(
                Lab.parse(new ClusterReplayCommand(), args.toArray(String[]::new))
                        .options(),
                Binaries.E2E_DIR.toAbsolutePath().getParent(),
                work,
                System.out);
        System.out.print(r.table());
        assertThat(r.podsBound()).as("pods bound").isGreaterThan(r.pods() / 2);
        assertThat(r.overCommittedCards()).as("cards over capacity").isZero();
        assertThat(r.overCommittedHosts()).as("nodes over CPU or memory").isZero();
        assertThat(r.unaccounted()).as("bound GPU pods without an allocation").isZero();
        assertThat(r.decisionOrder().simulatorPct())
                .as(
                        "the simulator on kube-scheduler's decision order (%s)",
                        r.decisionOrder().firstDifference())
                .isNotNaN();
        return r;
    }
}
