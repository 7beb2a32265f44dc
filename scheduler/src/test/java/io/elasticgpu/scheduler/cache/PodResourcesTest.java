package io.elasticgpu.scheduler.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodResourcesTest {

    private static io.fabric8.kubernetes.api.model.Container c(String cpu, String memory, String restartPolicy) {
        return new ContainerBuilder()
                .withName("c")
                .withRestartPolicy(restartPolicy)
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)))
                .endResources()
                .build();
    }

    @Test
    void countsLikeKubelet() {
        Pod pod = new PodBuilder()
                .withNewSpec()
                .withInitContainers(c("3", "1Gi", null), c("500m", "256Mi", "Always"), c("4", "2Gi", null))
                .withContainers(c("1", "1Gi", null), c("1500m", "512Mi", null))
                .withOverhead(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("64Mi")))
                .endSpec()
                .build();
        // app + sidecar: 1000 + 1500 + 500 = 3000 m; init: max(3000 + 0, 4000 + 500) = 4500 m; plus overhead 100 m
        // memory: app + sidecar 1024 + 512 + 256 = 1792; init max(1024, 2048 + 256) = 2304; plus 64
        assertThat(PodResources.of(pod)).isEqualTo(new PodResources.Totals(4600, 2368));
    }

    @Test
    void limitsStandInForMissingRequests() {
        Pod pod = new PodBuilder()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withNewResources()
                .withLimits(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("1.5Gi")))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        assertThat(PodResources.of(pod)).isEqualTo(new PodResources.Totals(250, 1536));
    }
}
