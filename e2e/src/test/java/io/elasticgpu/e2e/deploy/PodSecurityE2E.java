package io.elasticgpu.e2e.deploy;

import static io.elasticgpu.e2e.deploy.RenderedChart.rendered;
import static io.elasticgpu.e2e.deploy.RenderedChart.script;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every pod the chart makes, sent to the real kube-apiserver as a Pod (dry run) in a namespace that enforces the {@code
 * restricted} Pod Security Standard: all pass but the two that state why they cannot, and those are refused for exactly
 * the reasons stated (docs/install.md, "What the chart grants, and why"): the node agent mounts kubelet's device-plugin
 * and pod-resources directories and runs as root to use their sockets, and is in the host's PID namespace to attribute
 * GPU processes to pods (nodeAgent.usage, on by default); with isolation mps it is privileged besides (it starts MPS
 * daemons in the host's namespaces); the extender beside the default scheduler runs on the host network, so that only
 * that host reaches its verbs.
 */
@ExtendWith(ControlPlaneExtension.class)
class PodSecurityE2E {

    /** The checks of the Pod Security Standards, as the apiserver names them in a refusal. */
    private static final List<String> CHECKS = List.of(
            "host namespaces",
            "privileged",
            "non-default capabilities",
            "hostPath volumes",
            "hostPort",
            "forbidden AppArmor profile",
            "forbidden SELinux options",
            "forbidden proc mount type",
            "forbidden seccompProfile",
            "forbidden sysctls",
            "restricted volume types",
            "allowPrivilegeEscalation != false",
            "unrestricted capabilities",
            "runAsNonRoot != true",
            "runAsUser=0",
            "seccompProfile");

    /** Kubelet's sockets: their directories from the host, and root to use them; hostPID, for usage by process. */
    private static final String[] NODE_AGENT = {
        "host namespaces",
        "hostPID=true",
        "restricted volume types",
        "use restricted volume type \"hostPath\"",
        "runAsNonRoot != true"
    };
    /**
     * With isolation mps (all-options), besides: privileged, which also leaves privilege escalation, capabilities and
     * seccomp to the runtime's defaults for privileged containers (all allowed, unconfined).
     */
    private static final String[] NODE_AGENT_MPS = {
        "host namespaces",
        "hostPID=true",
        "privileged",
        "allowPrivilegeEscalation != false",
        "unrestricted capabilities",
        "restricted volume types",
        "use restricted volume type \"hostPath\"",
        "runAsNonRoot != true",
        "seccompProfile"
    };

    @BeforeAll
    static void render() throws Exception {
        assertThat(script("check-chart")).contains("chart OK");
    }

    @Test
    void withTheDefaultValuesOnlyTheNodeAgentIsOutsideRestrictedForItsHostDirectoriesRootAndHostPid(
            TestCluster cluster) {
        Map<String, String> refused = refusals(cluster.client(), "defaults", "pss-defaults");

        assertThat(refused.keySet()).containsExactly("DaemonSet elastic-gpu-node-agent");
        assertViolates(refused.get("DaemonSet elastic-gpu-node-agent"), NODE_AGENT);
    }

    @Test
    void besideTheDefaultSchedulerTheExtenderIsOutsideRestrictedOnlyForTheHostNetwork(TestCluster cluster) {
        Map<String, String> refused = refusals(cluster.client(), "all-options", "pss-all-options");

        assertThat(refused.keySet())
                .containsExactly("DaemonSet elastic-gpu-extender", "DaemonSet elastic-gpu-node-agent");
        assertViolates(refused.get("DaemonSet elastic-gpu-extender"), "host namespaces", "hostPort");
        assertViolates(refused.get("DaemonSet elastic-gpu-node-agent"), NODE_AGENT_MPS);
    }

    private static void assertViolates(String refusal, String... checks) {
        List<String> expected = List.of(checks);
        assertThat(refusal)
                .contains("violates PodSecurity \"restricted:latest\"")
                .contains(expected);
        for (String other : CHECKS) {
            if (expected.stream().noneMatch(e -> e.contains(other))) {
                assertThat(refusal)
                        .as("a check not stated")
                        .doesNotContain(other + " (")
                        .doesNotContain(other + ",");
            }
        }
    }

    /** Each workload's pod, dry-run created in a fresh restricted namespace: "Kind name" to the refusal. */
    private static Map<String, String> refusals(KubernetesClient client, String variant, String namespace) {
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .addToLabels("pod-security.kubernetes.io/enforce", "restricted")
                        .addToLabels("pod-security.kubernetes.io/enforce-version", "latest")
                        .endMetadata()
                        .build())
                .serverSideApply();
        Map<String, String> refused = new TreeMap<>();
        int sent = 0;
        for (HasMetadata object : rendered(client, variant)) {
            PodTemplateSpec template = switch (object) {
                case Deployment d -> d.getSpec().getTemplate();
                case DaemonSet d -> d.getSpec().getTemplate();
                default -> null;
            };
            if (template == null) {
                continue;
            }
            String name = object.getKind() + " " + object.getMetadata().getName();
            try {
                client.pods()
                        .inNamespace(namespace)
                        .resource(pod(client, namespace, object, template))
                        .dryRun()
                        .create();
            } catch (KubernetesClientException e) {
                refused.put(name, e.getMessage());
            }
            sent++;
        }
        assertThat(sent).as("workloads rendered").isGreaterThanOrEqualTo(3);
        System.out.printf("PodSecurityE2E %s: %d workloads, refused: %s%n", variant, sent, refused.keySet());
        return refused;
    }

    /**
     * The workload's pod as its controller would make it. Its ServiceAccount is created, and a RuntimeClass is left
     * out (the harness has none; it is no Pod Security concern), so that only Pod Security can refuse it.
     */
    private static Pod pod(KubernetesClient client, String namespace, HasMetadata owner, PodTemplateSpec template) {
        String account = template.getSpec().getServiceAccountName();
        if (account != null) {
            client.serviceAccounts()
                    .inNamespace(namespace)
                    .resource(new ServiceAccountBuilder()
                            .withNewMetadata()
                            .withName(account)
                            .endMetadata()
                            .build())
                    .serverSideApply();
        }
        return new PodBuilder()
                .withNewMetadata()
                .withName(owner.getMetadata().getName())
                .withNamespace(namespace)
                .withLabels(template.getMetadata().getLabels())
                .endMetadata()
                .withSpec(new io.fabric8.kubernetes.api.model.PodSpecBuilder(template.getSpec())
                        .withRuntimeClassName(null)
                        .build())
                .build();
    }
}
