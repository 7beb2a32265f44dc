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
 * least as much GPU as the simulator given the order kube-scheduler decided the pods in, less half a point. Through
 * DRA the allocator's card inside the node is the first that fits, not always the policy's, so fewer pods are decided
 * alike than through the device plugin. With the default policy's rollouts four runs at 200 nodes were within 0.18 of
 * the simulator on that order; {@code elastic} fell 0.64 and 0.87 below it (docs/results/cluster-replay-dra.md).
 */
class DraReplayE2E {

    /**
     * Given the order the pods were decided in, what the allocator's card choice may cost: above the four runs' worst
     * (0.18) by about two and a half of their spreads, below what {@code elastic} lost through DRA (0.64, 0.87). The
     * device-plugin path's 0.2 would fail about one run in eight here, by a normal fit to the four.
     */
    private static final double DECISION_ORDER_THRESHOLD = 0.5;

    /**
     * On the creation order, room for kube-scheduler leaving it, which at 200 nodes it does from its first pods
     * (docs/results/cluster-replay.md, "In CI").
     */
    private static final double CREATION_ORDER_THRESHOLD = 1.0;

    @Test
    void draClaimsArePlacedNearlyAsWellAsTheSimulatorPlacesThePodsAndNothingIsOverCommitted(@TempDir Path work)
            throws Exception {
        ReplayResult r = ClusterReplayE2E.replayAudited(work, "--api", "dra");
        assertThat(r.api()).isEqualTo("dra");
        ClusterReplayE2E.assertNearSimulator(r, CREATION_ORDER_THRESHOLD, DECISION_ORDER_THRESHOLD);
    }
}
