package io.elasticgpu.e2e.deploy;

import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extender's RBAC is what it uses, no more: the chart's ServiceAccounts, roles and bindings are
 * applied to the real apiserver, the extender runs with a token of the ServiceAccount the chart gives it, the real
 * kube-scheduler schedules through it a life that touches every path (first binds on a node, a bind after a
 * restart over a ledger that names a pod deleted meanwhile, a pod turned away and capacity freed), and the
 * apiserver's audit log says what it called. Every verb the chart grants the extender was used, and nothing it
 * called was refused.
 */
@ExtendWith(ControlPlaneExtension.class)
class ExtenderRbacE2E {

    private static final String NS = ControlPlane.AUDITED_NAMESPACE;

    @Test
    void everyVerbGrantedToTheExtenderIsUsedAndNoneItUsesIsRefused(TestCluster cluster) throws Exception {
        ChartRbac.Installed rbac = ChartRbac.install(cluster, "extender", "elastic-gpu-extender-ledger");
        Path kubeconfig = rbac.kubeconfig();

        cluster.createGpuNodes(List.of(GpuNodeSpec.of("a100", 2, "A100", 40_960)));
        Path template = Path.of("src/test/resources/scheduler/extender.yaml");
        EgpuProcess extender = start(cluster, kubeconfig, template);
        create(cluster, "first", "20000");
        await().atMost(Duration.ofSeconds(60)).until(() -> bound(cluster, "first"));
        extender.close();
        // While the extender is down, the pod its ledger names goes: the next bind must ask the API about it.
        cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName("first")
                .withGracePeriod(0)
                .delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> pod(cluster, "first") == null);
        extender = start(cluster, kubeconfig, template);
        try {
            // One per card (two do not fit on one), leaving 10,960 MiB on each: kube-scheduler's own count sees
            // 21,920 free, so only the extender turns the next pod away, and deleting one frees its card for it.
            create(cluster, "second", "30000");
            create(cluster, "third", "30000");
            await().atMost(Duration.ofSeconds(60)).until(() -> bound(cluster, "second") && bound(cluster, "third"));
            create(cluster, "waiting", "20000");
            await().pollDelay(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !bound(cluster, "waiting"));
            cluster.client()
                    .pods()
                    .inNamespace(cluster.namespace())
                    .withName("second")
                    .withGracePeriod(0)
                    .delete();
            await().atMost(Duration.ofSeconds(90)).until(() -> bound(cluster, "waiting"));
            // kube-scheduler may retry the waiting pod on the deletion alone, before the extender's requeue timer
            // nudges it: wait for the nudge (the node's capacity-freed annotation) before stopping the extender.
            String node = pod(cluster, "waiting").getSpec().getNodeName();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> cluster.client()
                            .nodes()
                            .withName(node)
                            .get()
                            .getMetadata()
                            .getAnnotations()
                            .containsKey(Annotations.CAPACITY_FREED));
        } finally {
            extender.close();
            cluster.restartScheduler(null);
        }

        ChartRbac.assertLeastPrivilege(
                "extender", rbac.grants(), ChartRbac.calls(cluster.controlPlane(), rbac.account()));
    }

    private static EgpuProcess start(TestCluster cluster, Path kubeconfig, Path template) throws IOException {
        ControlPlane cp = cluster.controlPlane();
        EgpuProcess extender = EgpuProcess.start(
                "scheduler",
                List.of("--kubeconfig", kubeconfig.toString(), "--ledger-namespace", NS),
                cp.workDir().resolve("logs").resolve("extender-rbac-" + System.nanoTime() + ".log"));
        cp.restartScheduler(template, extender.url());
        return extender;
    }

    private static void create(TestCluster cluster, String name, String memoryMib) {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .withLimits(Map.of("elasticgpu.io/gpu-memory", new Quantity(memoryMib)))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        cluster.client().pods().inNamespace(cluster.namespace()).resource(pod).create();
    }

    private static Pod pod(TestCluster cluster, String name) {
        return cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    private static boolean bound(TestCluster cluster, String name) {
        Pod p = pod(cluster, name);
        return p != null && p.getSpec().getNodeName() != null;
    }
}
