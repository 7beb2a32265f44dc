package io.elasticgpu.e2e.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.bench.cluster.ReplayResult;
import io.elasticgpu.e2e.replay.ClusterReplayE2E;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, reduced: the openb trace through DRA ({@code bench/run cluster-replay --api dra}) on 200 of its nodes,
 * each offering its cards in a ResourceSlice only, each GPU pod asking through a ResourceClaim of its own; the real
 * kube-scheduler's allocator picks the cards, the extender (as the chart configures it) the nodes. Audited from the
 * claims' allocations: no card over capacity, every bound GPU pod's claim allocated, and the cluster allocates at
 * least as much GPU as the simulator on the same order, less one point. Through DRA kube-scheduler's allocator picks
 * the card inside the node (the first that fits) and the extender the node; the extender's workload estimate counts
 * each DRA pod whole, its CPU and its cards together, which keeps the cluster within a few tenths of the simulator
 * (docs/results/cluster-replay-dra.md); runs differ by a few tenths.
 */
class DraReplayE2E {

    /**
     * What the allocator's card choice may cost, with room for the runs' spread and for kube-scheduler leaving the
     * creation order the simulator replays, which at 200 nodes it does from its first pods
     * (docs/results/cluster-replay-dra.md).
     */
    private static final double THRESHOLD = 1.0;

    @Test
    void draClaimsArePlacedNearlyAsWellAsTheSimulatorPlacesThePodsAndNothingIsOverCommitted(@TempDir Path work)
            throws Exception {
        ReplayResult r = ClusterReplayE2E.replayAudited(work, "--api", "dra");
        assertThat(r.api()).isEqualTo("dra");
        assertThat(r.inClusterPct())
                .as("GPU allocated in the cluster against the simulator's %.2f %%", r.simulatorPct())
                .isGreaterThanOrEqualTo(r.simulatorPct() - THRESHOLD);
    }
}
