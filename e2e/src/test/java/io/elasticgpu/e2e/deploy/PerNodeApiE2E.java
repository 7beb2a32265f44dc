package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart with {@code nodeAgent.api: per-node}, run by the real DaemonSet controller and kube-scheduler on kwok
 * nodes: the DRA agent runs on the nodes labelled {@code elasticgpu.io/use-dra=true} and the device plugin agent on
 * the others, each with a ServiceAccount whose role has only its API's grants; relabelling a node replaces one agent
 * by the other.
 */
@ExtendWith(ControlPlaneExtension.class)
class PerNodeApiE2E {

    private static final String NAMESPACE = "elastic-gpu-system";
    private static final String DEVICE_PLUGIN = "elastic-gpu-node-agent";
    private static final String DRA = "elastic-gpu-node-agent-dra";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void theDraAgentRunsOnNodesLabelledForDraAndTheDevicePluginAgentOnTheOthers(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        List<HasMetadata> chart = RenderedChart.rendered(client, "per-node");
        List<DaemonSet> daemonSets = chart.stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .toList();
        assertThat(daemonSets).extracting(d -> d.getMetadata().getName()).containsExactlyInAnyOrder(DEVICE_PLUGIN, DRA);
        assertThat(rules(chart, DRA))
                .as("the DRA agent's grants")
                .contains("resource.k8s.io resourceslices create")
                .doesNotContain(" pods patch");
        assertThat(rules(chart, DEVICE_PLUGIN))
                .as("the device plugin agent's grants")
                .contains(" pods patch")
                .doesNotContain("resource.k8s.io resourceslices create");

        List<String> nodes = cluster.createGpuNodes(
                List.of(GpuNodeSpec.of("plain", 2, "Tesla-T4", 15_360), GpuNodeSpec.of("dra", 2, "Tesla-T4", 15_360)));
        String plain = nodes.get(0);
        String dra = nodes.get(1);
        useDra(client, dra);
        if (client.namespaces().withName(NAMESPACE).get() == null) {
            client.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
        }
        List<HasMetadata> agents = chart.stream()
                .filter(o -> o instanceof ServiceAccount
                        || o instanceof ClusterRole
                        || o instanceof ClusterRoleBinding
                        || o instanceof DaemonSet
                        || o.getKind().equals("ConfigMap"))
                .filter(o -> o.getMetadata().getName().contains("node-agent")
                        || o.getKind().equals("ConfigMap"))
                .toList();
        try {
            agents.forEach(o -> client.resource(o).forceConflicts().serverSideApply());

            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(agentOn(client, plain, dra)).isEqualTo(Map.of(plain, DEVICE_PLUGIN, dra, DRA)));

            // The admin switches the plain node to DRA: the DaemonSet controller swaps its agent.
            useDra(client, plain);
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(agentOn(client, plain, dra)).isEqualTo(Map.of(plain, DRA, dra, DRA)));
        } finally {
            agents.stream()
                    .filter(DaemonSet.class::isInstance)
                    .forEach(o -> client.resource(o).delete());
        }
    }

    /** For each of {@code nodes}, the DaemonSet whose agent pod runs there (pods being deleted left out). */
    private static Map<String, String> agentOn(KubernetesClient client, String... nodes) {
        Map<String, String> on = new TreeMap<>();
        for (Pod p : client.pods().inNamespace(NAMESPACE).list().getItems()) {
            String node = p.getSpec().getNodeName();
            if (node == null
                    || p.getMetadata().getDeletionTimestamp() != null
                    || !List.of(nodes).contains(node)) {
                continue;
            }
            String owner = p.getMetadata().getOwnerReferences().stream()
                    .map(OwnerReference::getName)
                    .findFirst()
                    .orElse("");
            on.merge(node, owner, (a, b) -> a + "," + b);
        }
        return on;
    }

    /** The rules of the ClusterRole bound to ServiceAccount {@code account}, one "group resource verb" each. */
    private static List<String> rules(List<HasMetadata> chart, String account) {
        String role = chart.stream()
                .filter(ClusterRoleBinding.class::isInstance)
                .map(ClusterRoleBinding.class::cast)
                .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getName().equals(account)))
                .map(b -> b.getRoleRef().getName())
                .findFirst()
                .orElseThrow();
        return chart.stream()
                .filter(ClusterRole.class::isInstance)
                .map(ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals(role))
                .flatMap(r -> r.getRules().stream())
                .flatMap((PolicyRule r) -> r.getApiGroups().stream()
                        .flatMap(g -> r.getResources().stream()
                                .flatMap(res -> r.getVerbs().stream().map(v -> g + " " + res + " " + v))))
                .toList();
    }

    /**
     * Labels the node for DRA as an admin would, with a merge patch: kwok keeps updating the node's status, so a
     * write on the version read can lose the race (409), which a patch without one cannot.
     */
    private static void useDra(KubernetesClient client, String node) {
        client.nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"elasticgpu.io/use-dra\":\"true\"}}}");
    }
}
