package io.elasticgpu.e2e.deploy;

import static io.elasticgpu.e2e.deploy.RenderedChart.rendered;
import static io.elasticgpu.e2e.deploy.RenderedChart.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extender's RBAC is what it uses, no more (issue 15): the chart's ServiceAccounts, roles and bindings are
 * applied to the real apiserver, the extender runs with a token of the ServiceAccount the chart gives it, the real
 * kube-scheduler schedules through it a life that touches every path (first binds on a node, a bind after a
 * restart over a ledger that names a pod deleted meanwhile, a pod turned away and capacity freed), and the
 * apiserver's audit log says what it called. Every verb the chart grants the extender was used, and nothing it
 * called was refused.
 */
@ExtendWith(ControlPlaneExtension.class)
class ExtenderRbacE2E {

    private static final String NS = ControlPlane.AUDITED_NAMESPACE;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyVerbGrantedToTheExtenderIsUsedAndNoneItUsesIsRefused(TestCluster cluster) throws Exception {
        assertThat(script("check-chart")).contains("chart OK");
        List<HasMetadata> chart = rendered(cluster.client(), "defaults");
        String account = applyRbac(cluster.client(), chart);
        Path kubeconfig = kubeconfigOf(cluster, account);
        Set<String> granted = extenderGrants(chart);

        cluster.createGpuNodes(List.of(GpuNodeSpec.of("a100", 2, "A100", 40_960)));
        Path template = Path.of("src/test/resources/scheduler/extender.yaml");
        EgpuProcess extender = start(cluster, kubeconfig, template);
        create(cluster, "first", "20000");
        await().atMost(Duration.ofSeconds(60)).until(() -> bound(cluster, "first"));
        extender.close();
        // While the extender is down, the pod its ledger names goes: the next bind must ask the API about it.
        cluster.client().pods().inNamespace(cluster.namespace()).withName("first").withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> pod(cluster, "first") == null);
        extender = start(cluster, kubeconfig, template);
        try {
            // One per card (two do not fit on one), leaving 10,960 MiB on each: kube-scheduler's own count sees
            // 21,920 free, so only the extender turns the next pod away, and deleting one frees its card for it.
            create(cluster, "second", "30000");
            create(cluster, "third", "30000");
            await().atMost(Duration.ofSeconds(60)).until(() -> bound(cluster, "second") && bound(cluster, "third"));
            create(cluster, "waiting", "20000");
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> !bound(cluster, "waiting"));
            cluster.client().pods().inNamespace(cluster.namespace()).withName("second").withGracePeriod(0).delete();
            await().atMost(Duration.ofSeconds(90)).until(() -> bound(cluster, "waiting"));
        } finally {
            extender.close();
            cluster.restartScheduler(null);
        }

        Map<String, Integer> used = new TreeMap<>();
        Set<String> refused = new TreeSet<>();
        for (String line : Files.readAllLines(cluster.controlPlane().auditLog())) {
            JsonNode event = JSON.readTree(line);
            if (!event.path("user").path("username").asText().equals("system:serviceaccount:" + NS + ":" + account)) {
                continue;
            }
            String call = call(event);
            used.merge(call, 1, Integer::sum);
            if (event.path("responseStatus").path("code").asInt() == 403) {
                refused.add(call);
            }
        }
        System.out.printf("ExtenderRbacE2E: granted %s%n  used %s%n", granted, used);
        assertThat(refused).as("calls the chart's RBAC refused").isEmpty();
        assertThat(granted).as("verbs granted and never used").allSatisfy(g -> assertThat(used).containsKey(g));
        assertThat(used.keySet()).as("calls outside the extender's own grants").isSubsetOf(granted);
    }

    /** Creates the rendered ServiceAccounts, roles and bindings; answers the extender's ServiceAccount. */
    private static String applyRbac(KubernetesClient client, List<HasMetadata> chart) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).serverSideApply();
        for (HasMetadata o : chart) {
            if (o instanceof ServiceAccount || o instanceof ClusterRole || o instanceof ClusterRoleBinding
                    || o instanceof Role || o instanceof RoleBinding) {
                client.resource(o).forceConflicts().serverSideApply();
            }
        }
        return chart.stream().filter(RoleBinding.class::isInstance).map(RoleBinding.class::cast)
                .filter(b -> b.getRoleRef().getName().equals("elastic-gpu-extender-ledger")).findFirst().orElseThrow()
                .getSubjects().getFirst().getName();
    }

    /** "group/resource[/subresource] verb" for every rule of the roles labelled as the extender's. */
    private static Set<String> extenderGrants(List<HasMetadata> chart) {
        Set<String> grants = new TreeSet<>();
        for (HasMetadata o : chart) {
            boolean extenders = "extender".equals(o.getMetadata().getLabels().get("app.kubernetes.io/component"));
            List<PolicyRule> rules = o instanceof ClusterRole c && extenders ? c.getRules()
                    : o instanceof Role r && extenders ? r.getRules() : List.of();
            for (PolicyRule rule : rules) {
                for (String group : rule.getApiGroups()) {
                    for (String resource : rule.getResources()) {
                        rule.getVerbs().forEach(verb -> grants.add(group + "/" + resource + " " + verb));
                    }
                }
            }
        }
        assertThat(grants).as("the extender's grants in the rendered chart").isNotEmpty();
        return grants;
    }

    private static String call(JsonNode event) {
        JsonNode ref = event.path("objectRef");
        String sub = ref.path("subresource").asText("");
        return ref.path("apiGroup").asText("") + "/" + ref.path("resource").asText() + (sub.isEmpty() ? "" : "/" + sub)
                + " " + event.path("verb").asText();
    }

    /** A kubeconfig with a token of {@code account}: what the pod's projected token gives the extender. */
    private static Path kubeconfigOf(TestCluster cluster, String account) throws IOException {
        String token = cluster.client().serviceAccounts().inNamespace(NS).withName(account).tokenRequest(
                new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build()).getStatus().getToken();
        ControlPlane cp = cluster.controlPlane();
        return Files.writeString(cp.workDir().resolve("kubeconfig-" + account), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: e2e
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {token: "%s"}
                contexts:
                - name: e2e
                  context: {cluster: e2e, user: %s}
                current-context: e2e
                """.formatted(cp.server(), cp.credentials().certificate("ca"), account, token, account));
    }

    private static EgpuProcess start(TestCluster cluster, Path kubeconfig, Path template) throws IOException {
        ControlPlane cp = cluster.controlPlane();
        EgpuProcess extender = EgpuProcess.start("scheduler", List.of("--kubeconfig", kubeconfig.toString(),
                "--ledger-namespace", NS), cp.workDir().resolve("logs").resolve("extender-rbac-" + System.nanoTime() + ".log"));
        String yaml = Files.readString(template).replace("${EXTENDER_URL}", extender.url());
        cluster.restartScheduler(Files.writeString(cp.workDir().resolve("scheduler-rbac.yaml"), yaml));
        return extender;
    }

    private static void create(TestCluster cluster, String name, String memoryMib) {
        Pod pod = new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().addNewContainer()
                .withName("main").withImage("registry.example/train:1").withNewResources()
                .withLimits(Map.of("elasticgpu.io/gpu-memory", new Quantity(memoryMib))).endResources().endContainer()
                .endSpec().build();
        cluster.client().pods().inNamespace(cluster.namespace()).resource(pod).create();
    }

    private static Pod pod(TestCluster cluster, String name) {
        return cluster.client().pods().inNamespace(cluster.namespace()).withName(name).get();
    }

    private static boolean bound(TestCluster cluster, String name) {
        Pod p = pod(cluster, name);
        return p != null && p.getSpec().getNodeName() != null;
    }
}
