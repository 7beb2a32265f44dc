package io.elasticgpu.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.discovery.ProcessOwner;
import io.elasticgpu.node.isolation.MpsWatchdog.Bypass;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.usage.PodView;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A pod whose processes go around MPS: told each time, evicted the second time, counted only while it is here. */
class IsolationNoticesTest {

    private static final String TRAIN = "0b6c6f0e-3c1d-4c7e-9a55-2f1e0d3c4b5a";
    private static final String INFER = "7d2e4f10-8a9b-4c3d-b2e1-0f9e8d7c6b5a";

    private final TestCluster cluster =
            new TestCluster(AgentConfig.builder("gpu-1").build());
    private final AgentMetrics metrics = new AgentMetrics("gpu-1");
    private final List<PodView> pods = new CopyOnWriteArrayList<>(List.of(pod(TRAIN, "train"), pod(INFER, "infer")));
    private final IsolationNotices notices =
            new IsolationNotices(metrics, cluster::warn, cluster::evict, false, () -> pods);

    @Test
    void aPodsFirstProcessAroundMpsIsToldAndNotEvicted() {
        notices.bypassed(caught(TRAIN, 4242));

        assertThat(cluster.warnings)
                .containsExactly("Pod ml/train GpuShareBypassed: process 4242 used card 1 outside MPS (its"
                        + " CUDA_MPS_PIPE_DIRECTORY led to no daemon of its share), where nothing would hold it to its"
                        + " share: SIGKILL");
        assertThat(cluster.evictions).isEmpty();
        assertThat(notices.caught()).isEqualTo(Map.of(TRAIN, 1));
    }

    @Test
    void aPodCaughtTwiceIsEvictedWithAnEventSayingWhy() {
        notices.bypassed(caught(TRAIN, 4242));
        notices.bypassed(caught(TRAIN, 4250)); // the loop started it again

        assertThat(cluster.evictions).containsExactly("ml/train " + TRAIN);
        assertThat(cluster.warnings)
                .last()
                .isEqualTo("Pod ml/train GpuShareBypassEvicted: evicted by the node agent: process 4250 used card 1"
                        + " outside MPS (SIGKILL), the 2nd time this pod went around MPS, where nothing holds it to its"
                        + " share; the card goes on serving its other pods. Leave CUDA_MPS_PIPE_DIRECTORY as the node"
                        + " agent set it, in every container and process of the pod.");
        assertThat(counted(IsolationNotices.BYPASSED)).isEqualTo(2);
        assertThat(counted(IsolationNotices.EVICTED)).isEqualTo(1);
    }

    @Test
    void anEvictedPodCaughtAgainWhileItEndsIsNotEvictedAgain() {
        notices.bypassed(caught(TRAIN, 4242));
        notices.bypassed(caught(TRAIN, 4250));
        notices.bypassed(caught(TRAIN, 4260)); // within its grace period

        assertThat(cluster.evictions).hasSize(1);
        assertThat(cluster.warnings).last().asString().contains("GpuShareBypassed: process 4260");
    }

    @Test
    void aHostProcessIsNeverCounted() {
        Bypass host = new Bypass(1, 77, Optional.empty(), "not ended (a process of the host)");
        notices.bypassed(host);
        notices.bypassed(host);
        notices.bypassed(host);

        assertThat(cluster.evictions).isEmpty();
        assertThat(cluster.warnings).isEmpty();
        assertThat(notices.caught()).isEmpty();
        assertThat(counted(IsolationNotices.BYPASSED)).isEqualTo(3);
    }

    @Test
    void anotherPodsFirstCatchDoesNotEvictIt() {
        notices.bypassed(caught(TRAIN, 4242));
        notices.bypassed(caught(INFER, 5151));

        assertThat(cluster.evictions).isEmpty();
        assertThat(notices.caught()).isEqualTo(Map.of(TRAIN, 1, INFER, 1));
    }

    @Test
    void aRefusedEvictionIsToldAndAskedAgainAtTheNextCatch() {
        cluster.evictionAnswer = new PodEviction.Refused(ClusterEvictions.BUDGET);
        notices.bypassed(caught(TRAIN, 4242));
        notices.bypassed(caught(TRAIN, 4250));

        assertThat(cluster.evictions).containsExactly("ml/train " + TRAIN);
        assertThat(cluster.warnings)
                .last()
                .isEqualTo("Pod ml/train GpuShareBypassEvictionRefused: the node agent could not evict the pod after"
                        + " process 4250 used card 1 outside MPS (SIGKILL), the 2nd time this pod went around MPS:"
                        + " HTTP 429 Too Many Requests: a PodDisruptionBudget of the pod allows no disruption now. It"
                        + " goes on ending the pod's processes outside MPS and asks the eviction again when it next"
                        + " catches one. Leave CUDA_MPS_PIPE_DIRECTORY as the node agent set it, in every container"
                        + " and process of the pod.");
        assertThat(counted(IsolationNotices.REFUSED)).isEqualTo(1);

        cluster.evictionAnswer = new PodEviction.Evicted();
        notices.bypassed(caught(TRAIN, 4260));

        assertThat(cluster.evictions).containsExactly("ml/train " + TRAIN, "ml/train " + TRAIN);
        assertThat(cluster.warnings).last().asString().contains("GpuShareBypassEvicted", "the 3rd time");
    }

    @Test
    void aPodGoneFromTheNodeIsForgotten() {
        notices.bypassed(caught(TRAIN, 4242));
        pods.removeIf(p -> p.uid().equals(TRAIN));
        notices.bypassed(caught(INFER, 5151)); // any catch prunes the pods no longer on the node

        assertThat(notices.caught()).isEqualTo(Map.of(INFER, 1));

        // were it ever seen again (uids are never reused; this shows the count restarted), one catch evicts nothing
        pods.add(pod(TRAIN, "train"));
        notices.bypassed(caught(TRAIN, 4300));
        assertThat(cluster.evictions).isEmpty();
    }

    @Test
    void aPodNotYetSeenOnTheNodeIsNotCounted() {
        String unknown = "11111111-2222-3333-4444-555555555555";
        notices.bypassed(caught(unknown, 9000));
        notices.bypassed(caught(unknown, 9001));

        assertThat(cluster.evictions).isEmpty();
        assertThat(notices.caught()).isEmpty();
    }

    /** A process of pod {@code uid} on card 1 that the watchdog caught outside MPS and killed. */
    private static Bypass caught(String uid, long pid) {
        return new Bypass(1, pid, Optional.of(new ProcessOwner(uid, "a".repeat(64))), "SIGKILL");
    }

    private static PodView pod(String uid, String name) {
        return new PodView(uid, "ml", name, Map.of("a".repeat(64), "main"), Map.of());
    }

    private double counted(String reason) {
        return metrics.registry().scrape().stream()
                .filter(CounterSnapshot.class::isInstance)
                .map(CounterSnapshot.class::cast)
                .filter(s -> s.getMetadata().getName().equals("egpu_node_agent_isolation_events"))
                .flatMap(s -> s.getDataPoints().stream())
                .filter(d -> reason.equals(d.getLabels().get("reason")))
                .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue)
                .sum();
    }
}
