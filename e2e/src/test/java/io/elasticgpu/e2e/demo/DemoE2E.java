package io.elasticgpu.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.demo.Demo;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@code ./egpu demo} does, on the test run's control plane: every sample pod bound, the claim bound, the view
 * printed. */
@ExtendWith(ControlPlaneExtension.class)
class DemoE2E {

    @Test
    void theDemoBindsEverySamplePodAndShowsWhoHoldsWhichCard(ControlPlane controlPlane) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<JsonNode> demoNodes;
        try (Demo demo = Demo.start(
                        controlPlane,
                        Demo.schedulerTemplate(),
                        new InetSocketAddress("127.0.0.1", 0),
                        Demo.ControlPlaneUse.SHARED);
                KubernetesClient client = controlPlane.newClient()) {
            List<String> nodes = demo.createNodes(10);
            assertThat(nodes).hasSize(10);

            demo.submitWorkload(Duration.ofMinutes(2));

            List<Pod> pods = client.pods().inNamespace(Demo.NAMESPACE).list().getItems();
            assertThat(pods)
                    .hasSize(10)
                    .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isNotNull());
            // one per pod, container and card: 6 slices + 4 + 2 whole cards + the Aliyun slice + the claim's slice
            await().atMost(Duration.ofSeconds(60)).until(() -> demo.elasticGpus() == 14);
            demo.failCard(nodes.getLast(), 1);
            demo.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
            String broken = nodes.getLast();
            demoNodes = await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> demoNodes(cluster(demo.dashboardUrl())),
                            view -> view.stream()
                                            .anyMatch(
                                                    n -> n.get("name").asText().equals(broken)
                                                            && !n.at("/cards/1/healthy")
                                                                    .asBoolean())
                                    && view.stream()
                                            .flatMap(n -> n.get("cards").valueStream())
                                            .allMatch(
                                                    c -> c.get("memoryUsedMib").asLong()
                                                            >= (c.get("holders").isEmpty() ? 0 : 1)));
        } finally {
            removeTheDemo(controlPlane);
        }
        // Every node's inventory and labels came from its node agent (the fake nodes were created without them).
        assertThat(demoNodes)
                .hasSize(10)
                .allSatisfy(n -> assertThat(n.get("driver").asText()).isEqualTo("570.86.15"));
        assertThat(demoNodes.stream().mapToInt(n -> n.get("cards").size()).sum())
                .isEqualTo(50);
        assertThat(demoNodes.stream()
                        .flatMap(n -> n.get("cards").valueStream())
                        .filter(c -> !c.get("healthy").asBoolean()))
                .as("unhealthy cards")
                .hasSize(1);
        // The nodes name their cards as NVML does, so the model table knows every one: a figure, or the precision
        // the model lacks (T4 and V100 have no bf16), never "unknown model"; and what the cards use is published.
        assertThat(demoNodes.stream().flatMap(n -> n.get("cards").valueStream()))
                .allSatisfy(c -> {
                    assertThat(c.at("/freeTflops/unknown").asText()).doesNotContain("unknown model");
                    assertThat(c.get("memoryUsedMib").asLong()).isNotNegative();
                    if (!c.get("holders").isEmpty()) {
                        assertThat(c.get("memoryUsedMib").asLong())
                                .as("what a held card's pods use")
                                .isPositive();
                    }
                })
                .anySatisfy(c -> assertThat(c.at("/freeTflops/free").isNumber()).isTrue());
        String out = printed.toString(StandardCharsets.UTF_8);
        assertThat(out)
                .contains("train-nvlink")
                .contains("aliyun-sha") // the card it shares lists two pods, cut to fit 80 columns
                .contains("notebook")
                .containsPattern("claim demo/notebook: Bound to \\S+");
        assertThat(out.lines()).allMatch(l -> l.length() <= 80, "80 columns");
    }

    /** The demo's nodes in the dashboard's view (other tests share the control plane). */
    private static List<JsonNode> demoNodes(JsonNode view) {
        return view.get("nodes")
                .valueStream()
                .filter(n -> n.get("name").asText().startsWith("gpu-node-"))
                .toList();
    }

    /** The demo's pods and nodes go, so that the tests after this one see the control plane as they expect it. */
    private static void removeTheDemo(ControlPlane controlPlane) {
        try (KubernetesClient client = controlPlane.newClient()) {
            client.pods().inNamespace(Demo.NAMESPACE).withGracePeriod(0).delete();
            client.nodes().list().getItems().stream()
                    .map(n -> n.getMetadata().getName())
                    .filter(n -> n.startsWith("gpu-node-"))
                    .forEach(n -> client.nodes().withName(n).delete());
        }
    }

    private static JsonNode cluster(String dashboardUrl) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String body = http.send(
                            HttpRequest.newBuilder(URI.create(dashboardUrl).resolve("/api/v1/cluster"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return new ObjectMapper().readTree(body);
        }
    }
}
