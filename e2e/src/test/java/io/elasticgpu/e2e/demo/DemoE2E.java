package io.elasticgpu.e2e.demo;

import io.elasticgpu.e2e.cluster.ControlPlane;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What {@code ./egpu demo} does, on the test run's control plane: every sample pod bound, the claim bound, the view printed. */
@ExtendWith(ControlPlaneExtension.class)
class DemoE2E {

    @Test
    void theDemoBindsEverySamplePodAndShowsWhoHoldsWhichCard(ControlPlane controlPlane) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (Demo demo = Demo.start(controlPlane, Path.of("src/test/resources/scheduler/extender.yaml"));
             KubernetesClient client = controlPlane.newClient()) {
            assertThat(demo.createNodes(10)).hasSize(10);

            demo.submitWorkload(Duration.ofMinutes(2));

            List<Pod> pods = client.pods().inNamespace(Demo.NAMESPACE).list().getItems();
            assertThat(pods).hasSize(10).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isNotNull());
            // one per pod, container and card: 6 slices + 4 + 2 whole cards + the Aliyun slice + the claim's slice
            await().atMost(Duration.ofSeconds(60)).until(() -> demo.elasticGpus() == 14);
            demo.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        }
        String out = printed.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("train-nvlink").contains("aliyun-share").contains("notebook")
                .containsPattern("claim demo/notebook: Bound to \\S+");
        assertThat(out.lines()).allMatch(l -> l.length() <= 80, "80 columns");
    }
}
