package io.elasticgpu.e2e.deploy;

import static io.elasticgpu.e2e.deploy.RenderedChart.load;
import static io.elasticgpu.e2e.deploy.RenderedChart.rendered;
import static io.elasticgpu.e2e.deploy.RenderedChart.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Helm chart {@code deploy/helm/elastic-gpu} as the real kube-apiserver sees it: {@code deploy/bin/check-chart}
 * lints and renders it with helm built from source ({@code deploy/bin/build-helm}), with the default values and
 * with every option on; the chart's CRDs are applied for real, and every other rendered object is sent as a
 * server-side dry-run apply, which runs the apiserver's validation and admission (RBAC escalation checks
 * included) without storing anything. None may be rejected. So are the plain manifests {@code
 * deploy/bin/render-manifests} renders from the chart into {@code deploy/manifests/}. The second scheduler's
 * KubeSchedulerConfiguration is read and validated by the real kube-scheduler. The values that grant the node agent
 * privileges (isolation, nodeAgent.usage) grant those and no more. Which flag each value becomes, and that egpu has
 * it, is {@link ChartFlags}' table, checked by {@code ChartFlagsE2E}.
 */
@ExtendWith(ControlPlaneExtension.class)
class HelmChartE2E {

    /** The namespace check-chart renders the release into. */
    private static final String RELEASE_NAMESPACE = "elastic-gpu-system";

    /** Kinds whose API the e2e control plane does not serve: the Prometheus Operator's, only with monitoring on. */
    private static final String SERVICE_MONITOR = "monitoring.coreos.com/v1 ServiceMonitor";

    private static final Path DEPLOY = RenderedChart.DEPLOY;

    @BeforeAll
    static void checkChartLintsAndRendersBothValueSetsAndThePlainManifests() throws Exception {
        assertThat(script("check-chart")).contains("chart OK (helm v3.");
        Path helm = Path.of(run(DEPLOY.resolve("bin/build-helm").toString(), "--print-path"));
        assertThat(helm).as("helm from deploy/bin/build-helm").isExecutable();
        script("render-manifests");
    }

    @Test
    void everyObjectRenderedWithTheDefaultValuesIsAcceptedByTheApiserver(TestCluster cluster) {
        List<HasMetadata> objects = rendered(cluster.client(), "defaults");

        assertThat(kinds(objects))
                .contains(
                        "apps/v1 Deployment",
                        "apps/v1 DaemonSet",
                        "policy/v1 PodDisruptionBudget",
                        "apiextensions.k8s.io/v1 CustomResourceDefinition")
                .doesNotContain(SERVICE_MONITOR);
        assertThat(rejections(cluster.client(), objects)).isEmpty();
    }

    @Test
    void everyObjectRenderedWithEveryOptionOnIsAcceptedByTheApiserver(TestCluster cluster) {
        List<HasMetadata> objects = rendered(cluster.client(), "all-options");

        // The ServiceMonitor is rendered only when monitoring is on; this apiserver has no Prometheus Operator.
        assertThat(kinds(objects)).contains(SERVICE_MONITOR);
        assertThat(rejections(
                        cluster.client(),
                        objects.stream()
                                .filter(o -> !kind(o).equals(SERVICE_MONITOR))
                                .toList()))
                .isEmpty();
    }

    @Test
    void thePlainManifestsRenderedFromTheChartAreAcceptedByTheApiserver(TestCluster cluster) {
        // What deploy/manifests/README.md says to apply: crds.yaml first, then elastic-gpu.yaml.
        List<HasMetadata> objects = new ArrayList<>(load(cluster.client(), DEPLOY.resolve("manifests/crds.yaml")));
        objects.addAll(load(cluster.client(), DEPLOY.resolve("manifests/elastic-gpu.yaml")));

        assertThat(objects)
                .filteredOn(o -> o.getKind().equals("Namespace"))
                .extracting(o -> o.getMetadata().getName())
                .containsExactly(RELEASE_NAMESPACE);
        assertThat(kinds(objects))
                .contains("apps/v1 DaemonSet", "apps/v1 Deployment")
                .doesNotContain(SERVICE_MONITOR);
        assertThat(rejections(cluster.client(), objects)).isEmpty();
    }

    @Test
    void theServiceMonitorScrapesTheMetricsServiceOfEveryComponent(TestCluster cluster) {
        List<HasMetadata> objects = rendered(cluster.client(), "all-options");
        GenericKubernetesResource monitor = objects.stream()
                .filter(o -> kind(o).equals(SERVICE_MONITOR))
                .map(GenericKubernetesResource.class::cast)
                .findFirst()
                .orElseThrow();
        Map<String, String> selector = monitor.get("spec", "selector", "matchLabels");
        List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
        Object port = endpoints.getFirst().get("port");

        // Each metrics Service the ServiceMonitor selects, by component, with the port it scrapes.
        List<String> scraped = objects.stream()
                .filter(Service.class::isInstance)
                .map(Service.class::cast)
                .filter(svc -> svc.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .filter(svc -> svc.getSpec().getPorts().stream()
                        .anyMatch(p -> p.getName().equals(port)))
                .map(svc -> svc.getMetadata().getLabels().get("app.kubernetes.io/component"))
                .toList();
        assertThat(scraped).containsExactlyInAnyOrder("extender", "controller", "node-agent");
    }

    @Test
    void theGrafanaDashboardIsValidJsonAndChartsTheExtendersMetrics(TestCluster cluster) throws Exception {
        ConfigMap dashboard = rendered(cluster.client(), "all-options").stream()
                .filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals("elastic-gpu-dashboard"))
                .findFirst()
                .orElseThrow();

        var json = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dashboard.getData().get("elastic-gpu.json"));

        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        List<String> exprs = new ArrayList<>();
        // Row panels only group the others and carry no queries.
        json.get("panels")
                .forEach(p ->
                        p.path("targets").forEach(t -> exprs.add(t.get("expr").asText())));
        assertThat(String.join("\n", exprs))
                .contains(
                        "egpu_extender_request_seconds_bucket",
                        "egpu_extender_decisions_total",
                        "egpu_extender_node_failures_total",
                        "egpu_cards",
                        "egpu_card_memory_allocated_mib",
                        "egpu_card_core_allocated_percent",
                        "egpu_pods_unaccounted");
    }

    @Test
    void theSecondSchedulersConfigurationIsAcceptedByTheRealKubeScheduler(TestCluster cluster) throws Exception {
        ConfigMap config = rendered(cluster.client(), "defaults").stream()
                .filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals("elastic-gpu-scheduler-config"))
                .findFirst()
                .orElseThrow();
        // In the pod, kube-scheduler uses its service account; here, the control plane's kubeconfig.
        Path dir = Files.createDirectories(DEPLOY.resolve("target").resolve("kube-scheduler-config"));
        Path file = dir.resolve("config.yaml");
        Files.writeString(
                file,
                config.getData().get("config.yaml") + "clientConnection:\n  kubeconfig: "
                        + cluster.controlPlane().kubeconfig().toAbsolutePath() + "\n");
        Path written = dir.resolve("as-read.yaml");
        Files.deleteIfExists(written);

        // --write-config-to: decode, default and validate the configuration (profiles, extenders), write it, exit.
        run(
                cluster.controlPlane().binaries().kubeScheduler().toString(),
                "--config",
                file.toString(),
                "--write-config-to",
                written.toString());

        assertThat(Files.readString(written))
                .contains(
                        "schedulerName: elastic-gpu-scheduler",
                        "urlPrefix: http://127.0.0.1:8888",
                        "nodeCacheCapable: true",
                        "bindVerb: bind",
                        "resourceName: elastic-gpu-scheduler",
                        "resourceNamespace: elastic-gpu-system");
    }

    /**
     * The node agent's privileges follow the values: by default the host's PID namespace (nodeAgent.usage) and no
     * more; with usage off not even that; with isolation mps (all-options) privileged, hostPID, the MPS root, the
     * control program and nvidia-smi from the host, the MPS flags, and the controller's webhook told (the isolation
     * and the CUDA context reserve, the agents' own); and in every variant the agent may create events.
     */
    @Test
    void theNodeAgentsPrivilegesFollowIsolationAndUsage(TestCluster cluster) throws Exception {
        List<HasMetadata> defaultObjects = rendered(cluster.client(), "defaults");
        PodSpec defaults = nodeAgent(defaultObjects);
        assertThat(defaults.getHostPID()).isTrue();
        assertThat(defaults.getContainers().getFirst().getSecurityContext().getPrivileged())
                .isNull();
        assertThat(defaults.getContainers().getFirst().getSecurityContext().getAllowPrivilegeEscalation())
                .isFalse();
        assertThat(RenderedChart.arguments(
                        defaultObjects, defaults, defaults.getContainers().getFirst()))
                .containsSubsequence("--isolation", "none")
                .doesNotContain("--mps-root", "--mps-host-namespaces");
        assertThat(defaults.getVolumes())
                .extracting(Volume::getName)
                .doesNotContain("mps-root", "mps-control", "nvidia-smi");
        assertThat(controllerArgs(rendered(cluster.client(), "defaults")))
                .containsSubsequence(
                        "--isolation",
                        "none",
                        "--mps-context-reserve-mib",
                        "1024",
                        "--memory-block-mib",
                        "16",
                        "--aliyun-unit-mib",
                        "1024");

        String usageOff = RenderedChart.template(List.of(
                "--namespace",
                RELEASE_NAMESPACE,
                "--set",
                "nodeAgent.usage.enabled=false",
                "--show-only",
                "templates/node-agent.yaml"));
        PodSpec withoutUsage = nodeAgent(cluster.client()
                .load(new java.io.ByteArrayInputStream(usageOff.getBytes(StandardCharsets.UTF_8)))
                .items());
        assertThat(withoutUsage.getHostPID()).isNull();

        List<HasMetadata> all = rendered(cluster.client(), "all-options");
        PodSpec mps = nodeAgent(all);
        Container agent = mps.getContainers().getFirst();
        assertThat(mps.getHostPID())
                .as("hostPID with isolation mps, even with nodeAgent.usage off")
                .isTrue();
        assertThat(agent.getSecurityContext().getPrivileged()).isTrue();
        assertThat(agent.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(RenderedChart.arguments(all, mps, agent))
                .containsSubsequence(
                        "--isolation",
                        "mps",
                        "--mps-context-reserve-mib",
                        "2048",
                        "--mps-root",
                        "/run/egpu-mps",
                        "--mps-control",
                        "/usr/local/nvidia/bin/nvidia-cuda-mps-control",
                        "--mps-layout",
                        "per-share",
                        "--mps-shm-mib",
                        "256",
                        "--nvidia-smi",
                        "/usr/local/nvidia/bin/nvidia-smi",
                        "--mps-host-namespaces",
                        "--mps-cgroup-root",
                        "/sys/fs/cgroup");
        assertThat(mps.getVolumes())
                .filteredOn(v -> v.getName().startsWith("mps-"))
                .extracting(
                        Volume::getName,
                        v -> v.getHostPath().getPath(),
                        v -> v.getHostPath().getType())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("mps-root", "/run/egpu-mps", "DirectoryOrCreate"),
                        org.assertj.core.groups.Tuple.tuple(
                                "mps-control", "/usr/local/nvidia/bin/nvidia-cuda-mps-control", "File"));
        assertThat(agent.getVolumeMounts())
                .filteredOn(m -> m.getName().startsWith("mps-"))
                .extracting(m -> m.getMountPath())
                .containsExactly("/run/egpu-mps", "/usr/local/nvidia/bin/nvidia-cuda-mps-control");
        assertThat(mps.getVolumes())
                .filteredOn(v -> v.getName().equals("nvidia-smi"))
                .extracting(v -> v.getHostPath().getPath(), v -> v.getHostPath().getType())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("/usr/local/nvidia/bin/nvidia-smi", "File"));
        assertThat(agent.getVolumeMounts())
                .filteredOn(m -> m.getName().equals("nvidia-smi"))
                .extracting(m -> m.getMountPath())
                .containsExactly("/usr/local/nvidia/bin/nvidia-smi");
        assertThat(controllerArgs(all)).containsSubsequence("--isolation", "mps", "--mps-context-reserve-mib", "2048");

        for (String variant : List.of("defaults", "all-options", "per-node")) {
            List<ClusterRole> roles = rendered(cluster.client(), variant).stream()
                    .filter(ClusterRole.class::isInstance)
                    .map(ClusterRole.class::cast)
                    .filter(r -> r.getMetadata().getName().contains("node-agent"))
                    .toList();
            assertThat(roles)
                    .as(variant)
                    .isNotEmpty()
                    .allSatisfy(r -> assertThat(r.getRules()).anySatisfy(rule -> {
                        assertThat(rule.getApiGroups()).containsExactly("");
                        assertThat(rule.getResources()).containsExactly("events");
                        assertThat(rule.getVerbs()).containsExactly("create");
                    }));
        }
    }

    @Test
    void theNodeAgentOnNvmlGetsEveryCardByTheToolkitsDeviceListMountAsWellAsByTheVariable(TestCluster cluster) {
        // docs/install.md: with the toolkit told to ignore the variable in unprivileged containers, the mount decides
        PodSpec nvml = nodeAgent(rendered(cluster.client(), "defaults"));
        assertThat(nvml.getVolumes())
                .filteredOn(v -> v.getName().equals("nvidia-device-list"))
                .extracting(v -> v.getHostPath().getPath(), v -> v.getHostPath().getType())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("/dev/null", "CharDevice"));
        assertThat(nvml.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getName().equals("nvidia-device-list"))
                .extracting(m -> m.getMountPath(), m -> m.getReadOnly())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("/var/run/nvidia-container-devices/all", true));
        assertThat(nvml.getContainers().getFirst().getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .contains("NVIDIA_VISIBLE_DEVICES=all");
        // the simulated backend reads no card
        assertThat(nodeAgent(rendered(cluster.client(), "all-options")).getVolumes())
                .extracting(Volume::getName)
                .doesNotContain("nvidia-device-list");
    }

    /** The pod spec of the one node agent DaemonSet. */
    private static PodSpec nodeAgent(List<HasMetadata> objects) {
        return objects.stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .filter(d -> d.getMetadata().getName().equals("elastic-gpu-node-agent"))
                .findFirst()
                .orElseThrow()
                .getSpec()
                .getTemplate()
                .getSpec();
    }

    private static List<String> controllerArgs(List<HasMetadata> objects) {
        PodSpec pod = objects.stream()
                .filter(Deployment.class::isInstance)
                .map(Deployment.class::cast)
                .filter(d -> d.getMetadata().getName().equals("elastic-gpu-controller"))
                .findFirst()
                .orElseThrow()
                .getSpec()
                .getTemplate()
                .getSpec();
        return RenderedChart.arguments(objects, pod, pod.getContainers().getFirst());
    }

    /** Applies the CRDs for real, then dry-runs the rest; answers "kind namespace/name: message" per rejection. */
    private static List<String> rejections(KubernetesClient client, List<HasMetadata> objects) {
        applyCrds(client, objects);
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(RELEASE_NAMESPACE)
                        .endMetadata()
                        .build())
                .serverSideApply();
        List<String> rejected = new ArrayList<>();
        int accepted = 0;
        for (HasMetadata object : objects) {
            if (object instanceof CustomResourceDefinition) {
                continue;
            }
            try {
                HasMetadata answer = client.resource(object).dryRun().serverSideApply();
                assertThat(answer.getMetadata().getName())
                        .isEqualTo(object.getMetadata().getName());
                accepted++;
            } catch (KubernetesClientException e) {
                rejected.add("%s %s/%s: %s"
                        .formatted(
                                kind(object),
                                object.getMetadata().getNamespace(),
                                object.getMetadata().getName(),
                                e.getMessage()));
            }
        }
        assertThat(accepted + rejected.size()).as("objects sent").isGreaterThan(20);
        return rejected;
    }

    private static void applyCrds(KubernetesClient client, List<HasMetadata> objects) {
        List<CustomResourceDefinition> crds = objects.stream()
                .filter(CustomResourceDefinition.class::isInstance)
                .map(CustomResourceDefinition.class::cast)
                .toList();
        assertThat(crds)
                .extracting(c -> c.getMetadata().getName())
                .containsExactlyInAnyOrder(
                        "elasticgpuclasses.elasticgpu.io",
                        "elasticgpuclaims.elasticgpu.io",
                        "elasticgpus.elasticgpu.io");
        for (CustomResourceDefinition crd : crds) {
            client.resource(crd).forceConflicts().serverSideApply();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ElasticGPUCrds.established(client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(crd.getMetadata().getName())
                            .get()));
        }
    }

    private static List<String> kinds(List<HasMetadata> objects) {
        return objects.stream().map(HelmChartE2E::kind).distinct().toList();
    }

    private static String kind(HasMetadata object) {
        return object.getApiVersion() + " " + object.getKind();
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor())
                .as("%s: %s", String.join(" ", command), out)
                .isZero();
        return out;
    }
}
