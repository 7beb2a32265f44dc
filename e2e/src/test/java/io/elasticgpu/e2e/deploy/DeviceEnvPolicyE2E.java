package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's {@code device-env.elasticgpu.io} ValidatingAdmissionPolicy, rendered by helm with the default values and
 * applied to the real kube-apiserver: a pod whose own spec sets {@code NVIDIA_VISIBLE_DEVICES} (which, with the NVIDIA
 * container runtime, would hand it the cards it names whatever it was granted) is refused with a message that says
 * what to do, in a container, an init container or an ephemeral container added later; {@code void} and {@code none}
 * are admitted, and so is any value in the release namespace and in a namespace with the exempt label.
 */
@ExtendWith(ControlPlaneExtension.class)
class DeviceEnvPolicyE2E {

    private static final String RELEASE_NAMESPACE = "elastic-gpu-system";
    private static final String EXEMPT_LABEL = "elasticgpu.io/device-env-allowed";
    private static final String TEAM = "device-env-team";
    private static final String EXEMPT = "device-env-exempt";
    private static final String VARIABLE = "NVIDIA_VISIBLE_DEVICES";

    private static String rendered;
    private List<HasMetadata> policy;
    private KubernetesClient client;

    @BeforeAll
    static void renderThePolicy() throws Exception {
        rendered = RenderedChart.template(
                List.of("--namespace", RELEASE_NAMESPACE, "--show-only", "templates/device-env-policy.yaml"));
    }

    /** Applies the policy as the chart renders it, with the namespaces the tests use, and waits until it refuses. */
    private void install(TestCluster cluster) {
        client = cluster.client();
        policy = client.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)))
                .items();
        assertThat(policy)
                .extracting(HasMetadata::getKind)
                .containsExactly("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
        for (String name : List.of(TEAM, EXEMPT, RELEASE_NAMESPACE)) {
            Map<String, String> labels = name.equals(EXEMPT) ? Map.of(EXEMPT_LABEL, "true") : Map.of();
            client.resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withLabels(labels)
                            .endMetadata()
                            .build())
                    .forceConflicts()
                    .serverSideApply();
        }
        policy.forEach(o -> client.resource(o).forceConflicts().serverSideApply());
        // The apiserver takes in a new policy asynchronously: wait until it refuses what it must.
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(refusal(TEAM, pod(env("all")))).isNotNull());
    }

    @AfterEach
    void removeThePolicy() {
        if (policy != null) {
            policy.forEach(o -> client.resource(o).delete());
        }
    }

    @Test
    void aContainerThatNamesCardsItselfIsRefusedAndTheMessageSaysWhatToDo(TestCluster cluster) {
        install(cluster);
        assertThat(refusal(TEAM, pod(env("all"))))
                .contains("ValidatingAdmissionPolicy 'device-env.elasticgpu.io'")
                .contains("container main sets NVIDIA_VISIBLE_DEVICES, which would give it cards it was not granted")
                .contains("ask for elasticgpu.io/gpu (or nvidia.com/gpu) and leave the variable to the node agent")
                .contains("namespaces labelled " + EXEMPT_LABEL + " are exempt");
        assertThat(refusal(TEAM, pod(env("GPU-0f6e2c1a-7b3d-4e8f-9a10-112233445566"))))
                .contains("container main sets NVIDIA_VISIBLE_DEVICES");
        // a value the apiserver cannot read (from a ConfigMap) is refused as well
        EnvVar fromConfigMap = new EnvVarBuilder()
                .withName(VARIABLE)
                .withNewValueFrom()
                .withNewConfigMapKeyRef("devices", "gpus", false)
                .endValueFrom()
                .build();
        assertThat(refusal(TEAM, pod(fromConfigMap))).contains("container main sets NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void voidNoneEmptyAndOtherVariablesAreAdmitted(TestCluster cluster) {
        install(cluster);
        assertThat(refusal(TEAM, pod(env("void")))).isNull();
        assertThat(refusal(TEAM, pod(env("none")))).isNull();
        assertThat(refusal(TEAM, pod(env(""))))
                .as("empty, which the toolkit reads as void")
                .isNull();
        assertThat(refusal(TEAM, pod(new EnvVar("CUDA_VISIBLE_DEVICES", "0", null))))
                .isNull();
        assertThat(refusal(TEAM, pod())).isNull();
    }

    @Test
    void anInitContainerIsRefusedToo(TestCluster cluster) {
        install(cluster);
        Pod pod = new PodBuilder(pod())
                .editSpec()
                .addToInitContainers(container("setup", env("all")))
                .endSpec()
                .build();

        assertThat(refusal(TEAM, pod)).contains("an init container sets NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void theReleaseNamespaceAndALabelledNamespaceAreExempt(TestCluster cluster) {
        install(cluster);
        assertThat(refusal(RELEASE_NAMESPACE, pod(env("all")))).isNull();
        assertThat(refusal(EXEMPT, pod(env("all")))).isNull();
    }

    @Test
    void anEphemeralContainerAddedToARunningPodIsRefused(TestCluster cluster) {
        install(cluster);
        Pod created = client.pods()
                .inNamespace(TEAM)
                .resource(new PodBuilder(pod())
                        .editMetadata()
                        .withName("debug-target")
                        .endMetadata()
                        .build())
                .create();
        try {
            // A patch with no resourceVersion: kube-scheduler writes the pod's status meanwhile (it fits no node).
            assertThatThrownBy(() -> addEphemeral(
                            created, "debugger", "{\"name\": \"NVIDIA_VISIBLE_DEVICES\", " + "\"value\": \"all\"}"))
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("an ephemeral container sets NVIDIA_VISIBLE_DEVICES");
            // the same without the variable is admitted: it is the variable that is refused
            assertThat(addEphemeral(created, "plain", "{\"name\": \"TERM\", \"value\": \"xterm\"}")
                            .getSpec()
                            .getEphemeralContainers())
                    .extracting(c -> c.getName())
                    .containsExactly("plain");
        } finally {
            client.pods()
                    .inNamespace(TEAM)
                    .withName("debug-target")
                    .withGracePeriod(0)
                    .delete();
        }
    }

    /** Adds an ephemeral container {@code name} with one variable (JSON) to {@code pod}, by a strategic merge patch. */
    private Pod addEphemeral(Pod pod, String name, String variable) {
        String patch = "{\"spec\": {\"ephemeralContainers\": [{\"name\": \"%s\", \"image\": \"busybox\", "
                + "\"env\": [%s]}]}}";
        patch = patch.formatted(name, variable);
        return client.pods()
                .inNamespace(TEAM)
                .withName(pod.getMetadata().getName())
                .ephemeralContainers()
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    }

    /** The apiserver's refusal of a dry-run creation of {@code pod} in {@code namespace}; null when admitted. */
    private String refusal(String namespace, Pod pod) {
        try {
            client.pods().inNamespace(namespace).resource(pod).dryRun().create();
            return null;
        } catch (KubernetesClientException e) {
            return e.getMessage();
        }
    }

    private static EnvVar env(String value) {
        return new EnvVar(VARIABLE, value, null);
    }

    private static Pod pod(EnvVar... env) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("trainer")
                .endMetadata()
                .withNewSpec()
                .withContainers(container("main", env))
                .endSpec()
                .build();
    }

    private static Container container(String name, EnvVar... env) {
        return new ContainerBuilder()
                .withName(name)
                .withImage("busybox")
                .withEnv(env)
                .build();
    }
}
