package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyName;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyProviderTest {

    private final List<Pod> pods = new ArrayList<>();
    private final Instant now = Instant.parse("2026-11-25T07:00:00Z");
    private final PolicyProvider provider = new PolicyProvider(
            PolicyName.ELASTIC,
            () -> List.copyOf(pods),
            List::of,
            pods::size,
            PodAsks.Units.DEFAULT,
            () -> now,
            Duration.ofMinutes(1));

    private void add(int count) {
        for (int i = 0; i < count; i++) {
            pods.add(pod(
                    "ns",
                    "p" + pods.size(),
                    "u" + pods.size(),
                    container("main", Map.of("elasticgpu.io/gpu-core", "30"))));
        }
    }

    @Test
    void theWorkloadIsEstimatedAgainWhileTheGpuPodsGrowByHalfWithoutWaitingForTheRefresh() {
        Policy empty = provider.get();
        add(10);
        Policy ten = provider.get();
        assertThat(ten).as("the first pods arrived").isNotSameAs(empty);
        add(5);
        assertThat(provider.get()).as("15 is not more than half again 10").isSameAs(ten);
        add(1);
        assertThat(provider.get()).isNotSameAs(ten);
    }
}
