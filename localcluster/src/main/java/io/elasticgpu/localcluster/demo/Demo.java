package io.elasticgpu.localcluster.demo;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.service.ControllerConfig;
import io.elasticgpu.controller.service.ControllerService;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.TableRenderer;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.scheduler.extender.ExtenderConfig;
import io.elasticgpu.scheduler.extender.ExtenderService;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs Elastic GPU against a control plane with fake GPU nodes, in this process, each component started as {@code egpu}
 * starts it ({@link ExtenderService}, {@link ControllerService}, {@code NodeAgentService}): the node agents' inventory
 * publishing and health watch (simulated GPUs; kwok's nodes have no kubelet to offer them to), the extender (with
 * kube-scheduler reconfigured to call it), the controller, the admission webhook and the dashboard; then submits a
 * sample workload (memory and compute slices, whole cards on
 * NVLink, an Aliyun-style pod, a claim) and prints the cluster view.
 */
public final class Demo implements AutoCloseable {

    public static final String NAMESPACE = "demo";
    /** The Xid {@link #failCard} reports. */
    public static final long XID_FALLEN_OFF_THE_BUS = DemoNodeAgents.XID_FALLEN_OFF_THE_BUS;

    private final ControlPlane controlPlane;
    private final KubernetesClient client;
    private final ExtenderService extender;
    private final ControllerService controller;
    private final ControlPlaneUse use;
    private DemoNodeAgents agents;

    /** Whose control plane the demo runs on, which decides what {@link #close()} puts back. */
    public enum ControlPlaneUse {
        /** Tests share it: close gives kube-scheduler its own configuration back and removes the webhook's. */
        SHARED,
        /** {@code ./egpu demo} stops it right after: close only stops the components. */
        OWNED
    }

    private Demo(
            ControlPlane controlPlane,
            String schedulerTemplate,
            InetSocketAddress dashboardAddress,
            ControlPlaneUse use)
            throws IOException {
        this.controlPlane = controlPlane;
        this.use = use;
        this.client = controlPlane.newClient();
        ElasticGPUCrds.apply(client);
        this.extender = ExtenderService.start(
                client, ExtenderConfig.builder().withListen("127.0.0.1:0").build());
        String yaml = schedulerTemplate.replace("${EXTENDER_URL}", "http://127.0.0.1:" + extender.port());
        controlPlane.restartScheduler(Files.writeString(controlPlane.workDir().resolve("scheduler-demo.yaml"), yaml));
        // One replica: the controller at once, the webhook called at its own address, the dashboard where asked.
        this.controller = ControllerService.start(
                client,
                ControllerConfig.builder()
                        .withHttpListen(new io.elasticgpu.http.ListenAddress(
                                dashboardAddress.getHostString(), dashboardAddress.getPort()))
                        .withoutLeaderElection()
                        .withResync(Duration.ofSeconds(30))
                        .withWebhook(
                                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                                        .withCertificateLifetime(Duration.ofDays(1))
                                        .build())
                        .build());
    }

    /**
     * Starts the components against {@code controlPlane}, whose kube-scheduler it reconfigures.
     *
     * @param schedulerTemplate a KubeSchedulerConfiguration with {@code ${EXTENDER_URL}}, e.g. {@link
     * #schedulerTemplate()}
     * @param dashboardAddress where the dashboard listens (port 0: any free port)
     */
    public static Demo start(
            ControlPlane controlPlane,
            String schedulerTemplate,
            InetSocketAddress dashboardAddress,
            ControlPlaneUse use)
            throws IOException {
        return new Demo(controlPlane, schedulerTemplate, dashboardAddress, use);
    }

    /**
     * The KubeSchedulerConfiguration the demo gives kube-scheduler (the extender stanza as the Helm chart ships it),
     * with {@code ${EXTENDER_URL}} where the extender's address goes.
     */
    public static String schedulerTemplate() {
        try (var in = Demo.class.getResourceAsStream("extender-scheduler.yaml")) {
            if (in == null) {
                throw new IllegalStateException(
                        "the jar lacks io/elasticgpu/localcluster/demo/extender-scheduler.yaml");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Creates {@code count} fake GPU nodes (8-card A100s with two NVLink islands, 4-card V100s, 2-card T4s), starts a
     * node agent's publishing for each, and waits until every inventory is on its node.
     */
    public List<String> createNodes(int count) {
        List<GpuNodeSpec> specs = GpuNodeSpec.mixed("gpu-node", count);
        FakeGpuNodes.createBare(client, specs, Duration.ofMinutes(2));
        agents = DemoNodeAgents.start(client, specs);
        List<String> names = specs.stream().map(GpuNodeSpec::name).toList();
        names.forEach(n -> client.nodes()
                .withName(n)
                .waitUntilCondition(
                        x -> x.getMetadata().getAnnotations().containsKey(Annotations.INVENTORY), 1, TimeUnit.MINUTES));
        return names;
    }

    /** A critical Xid on one card of {@code node}: its agent marks the card unhealthy and publishes it. */
    public void failCard(String node, int card) {
        agents.failCard(node, card);
        client.nodes()
                .withName(node)
                .waitUntilCondition(
                        n -> !NodeInventory.fromJson(
                                        n.getMetadata().getAnnotations().get(Annotations.INVENTORY))
                                .cards()
                                .get(card)
                                .healthy(),
                        1,
                        TimeUnit.MINUTES);
    }

    /** The dashboard's address, e.g. {@code http://127.0.0.1:8080/ui/}. */
    public String dashboardUrl() {
        return "http://127.0.0.1:%d/ui/".formatted(controller.dashboardPort());
    }

    /** Submits the sample workload and waits until every pod is bound (or {@code timeout} passes). */
    public void submitWorkload(Duration timeout) {
        if (client.namespaces().withName(NAMESPACE).get() == null) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
        }
        createClassAndClaim();
        for (int i = 0; i < 6; i++) {
            create(
                    "slice-" + i,
                    Map.of(ResourceNames.GPU_MEMORY, 4096L * (1 + i % 3), ResourceNames.GPU_CORE, 20L + 10 * (i % 3)));
        }
        create("train-nvlink", Map.of(ResourceNames.GPU, 4L));
        create("train-pair", Map.of(ResourceNames.GPU, 2L));
        create("aliyun-share", Map.of(ResourceNames.ALIYUN_GPU_MEM, 8L));
        WebhookRollout.createOnceMutated(
                client,
                NAMESPACE,
                n -> pod("notebook-" + n, Map.of(), "notebook"),
                WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                Duration.ofSeconds(30));
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Pod p : client.pods().inNamespace(NAMESPACE).list().getItems()) {
            long left = Math.max(1, deadline - System.nanoTime());
            client.pods()
                    .inNamespace(NAMESPACE)
                    .withName(p.getMetadata().getName())
                    .waitUntilCondition(
                            x -> x != null && x.getSpec().getNodeName() != null, left, TimeUnit.NANOSECONDS);
        }
        if (agents != null) {
            agents.publishUsage(); // now, not at the next round: what is printed next shows the pods' use
        }
    }

    /** What {@code egpu inspect} prints, and the ElasticGPUs the controller keeps. */
    public void print(PrintStream out) {
        ClusterView view = ClusterView.of(
                client.nodes().list().getItems(),
                client.pods().inAnyNamespace().list().getItems());
        out.print(new TableRenderer(false).render(view));
        List<ElasticGPU> gpus = client.resources(ElasticGPU.class).list().getItems();
        out.printf("%nElasticGPUs (kubectl get egpu): %d, one per pod, container and card%n", gpus.size());
        ElasticGPUClaim claim = client.resources(ElasticGPUClaim.class)
                .inNamespace(NAMESPACE)
                .withName("notebook")
                .get();
        out.printf(
                "claim %s/notebook: %s%n",
                NAMESPACE,
                claim.getStatus() == null
                        ? "Pending"
                        : claim.getStatus().getPhase()
                                + (claim.getStatus().getElasticGPUName() == null
                                        ? ""
                                        : " to " + claim.getStatus().getElasticGPUName()));
    }

    /** ElasticGPUs of the demo's pods. */
    public long elasticGpus() {
        return client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> g.getSpec().getPodRef() != null
                        && NAMESPACE.equals(g.getSpec().getPodRef().getNamespace()))
                .count();
    }

    private void create(String name, Map<String, Long> limits) {
        client.pods().inNamespace(NAMESPACE).resource(pod(name, limits, null)).create();
    }

    private static Pod pod(String name, Map<String, Long> limits, String claim) {
        var builder = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NAMESPACE)
                .endMetadata();
        if (claim != null) {
            builder.editMetadata()
                    .addToAnnotations("elasticgpu.io/egpuc-main", claim)
                    .endMetadata();
        }
        var container = new io.fabric8.kubernetes.api.model.ContainerBuilder()
                .withName("main")
                .withImage("registry.example/train:1");
        if (!limits.isEmpty()) {
            Map<String, Quantity> q = new java.util.LinkedHashMap<>();
            limits.forEach((k, v) -> q.put(k, new Quantity(Long.toString(v))));
            container.withNewResources().withLimits(q).endResources();
        }
        return builder.withNewSpec().withContainers(container.build()).endSpec().build();
    }

    private void createClassAndClaim() {
        client.resource(ElasticGPUClass.of("shared", ElasticGPUClassSpec.Provisioner.GPU_SHARE, null))
                .createOr(existing -> existing.update());
        client.resource(ElasticGPUClaim.of(
                        NAMESPACE, "notebook", "shared", Map.of(ResourceNames.GPU_MEMORY, new Quantity("8192"))))
                .createOr(existing -> existing.update());
    }

    /**
     * Stops the components; on a {@link ControlPlaneUse#SHARED} control plane, also puts back what the demo changed. */
    @Override
    public void close() {
        if (agents != null) {
            agents.close();
        }
        controller.close();
        extender.close();
        if (use == ControlPlaneUse.SHARED) {
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
            controlPlane.restartScheduler(null);
        }
        client.close();
    }
}
