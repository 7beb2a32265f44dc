package io.elasticgpu.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.demo.Demo;
import io.elasticgpu.localcluster.demo.DemoRealNode;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
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
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ./egpu demo --real-node}: the demo's components (extender, controller, webhook, dashboard, in this process
 * as the demo starts them) place the real-node pods of the sample workload; they run in real containers, each
 * printing the cards and limits its pod's allocation gives it, and the dashboard shows them on the real node.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeDemoE2E {

    @Test
    void theDemosRealNodePodsRunAndPrintTheirOwnGrantAndTheDashboardShowsThem(ControlPlane controlPlane, RealNode node)
            throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        JsonNode view;
        try (KubernetesClient client = controlPlane.newClient();
                Demo demo = Demo.start(
                        controlPlane,
                        Demo.schedulerTemplate(),
                        new InetSocketAddress("127.0.0.1", 0),
                        Demo.ControlPlaneUse.SHARED)) {
            if (client.namespaces().withName(Demo.NAMESPACE).get() == null) {
                client.namespaces()
                        .resource(new NamespaceBuilder()
                                .withNewMetadata()
                                .withName(Demo.NAMESPACE)
                                .endMetadata()
                                .build())
                        .create();
            }
            try (DemoRealNode real = DemoRealNode.on(controlPlane, node)) {
                real.submit(Demo.NAMESPACE, Duration.ofMinutes(2));
                real.print(Demo.NAMESPACE, new PrintStream(printed, true, StandardCharsets.UTF_8));

                for (String name : List.of("real-slice-a", "real-slice-b", "real-whole")) {
                    Pod pod = client.pods()
                            .inNamespace(Demo.NAMESPACE)
                            .withName(name)
                            .get();
                    assertThat(pod.getSpec().getNodeName()).isEqualTo(node.name());
                    PodGrant grant = GpuWorkloads.allocated(client, Demo.NAMESPACE, name);
                    List<Share> shares = grant.containers().get("main");
                    Map<String, String> told = real.told(Demo.NAMESPACE, name);
                    assertThat(told.get("NVIDIA_VISIBLE_DEVICES"))
                            .as("the cards %s's container was told", name)
                            .isEqualTo(shares.stream().map(Share::uuid).collect(Collectors.joining(",")));
                    assertThat(told.get("ELASTICGPU_CARD_INDEX"))
                            .isEqualTo(shares.stream()
                                    .map(s -> Integer.toString(s.card()))
                                    .collect(Collectors.joining(",")));
                }
                assertThat(real.told(Demo.NAMESPACE, "real-slice-a"))
                        .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "2048")
                        .containsEntry("ELASTICGPU_CORE_PERCENT", "30");
                assertThat(real.told(Demo.NAMESPACE, "real-slice-b"))
                        .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "1024")
                        .containsEntry("ELASTICGPU_CORE_PERCENT", "20");

                view = await().atMost(Duration.ofSeconds(30))
                        .until(
                                () -> cluster(demo.dashboardUrl()),
                                v -> realNodePods(v, node.name())
                                        .containsAll(List.of("real-slice-a", "real-slice-b", "real-whole")));
            } finally {
                client.pods().inNamespace(Demo.NAMESPACE).withGracePeriod(0).delete();
            }
        }
        assertThat(realNodePods(view, node.name())).hasSize(3);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("real-slice-a (Running)")
                .contains("ELASTICGPU_MEMORY_LIMIT_MIB=2048");
    }

    /** The names of the pods the dashboard shows holding cards of {@code node}. */
    private static List<String> realNodePods(JsonNode view, String node) {
        return view.get("nodes")
                .valueStream()
                .filter(n -> n.get("name").asText().equals(node))
                .flatMap(n -> n.get("cards").valueStream())
                .flatMap(c -> c.path("holders").valueStream())
                .map(h -> h.path("pod").asText())
                .map(p -> p.contains("/") ? p.substring(p.indexOf('/') + 1) : p)
                .distinct()
                .sorted()
                .toList();
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
