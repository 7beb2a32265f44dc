package io.elasticgpu.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.fabric8.kubernetes.api.model.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real node itself, before any GPU: it joins the control plane beside the kwok nodes, Ready, and a pod without
 * a GPU runs there as a container whose output comes back through the API server.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeE2E {

    @Test
    void aPodWithoutAGpuRunsOnTheRealNodeAndPrintsHello(TestCluster cluster, RealNode node) {
        Node n = cluster.client().nodes().withName(node.name()).get();
        assertThat(n.getStatus().getNodeInfo().getKubeletVersion())
                .isEqualTo(node.programs().kubernetesVersion());
        assertThat(n.getStatus().getNodeInfo().getContainerRuntimeVersion()).startsWith("containerd://2.");
        assertThat(n.getSpec().getTaints())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo(RealNode.TAINT_KEY));

        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        pods.create(pods.pod("hello")
                .editSpec()
                .withRestartPolicy("Never")
                .addNewContainer()
                .withName("main")
                .withImage(node.busyboxImage())
                .withImagePullPolicy("Never")
                .withCommand("sh", "-c", "echo hello from $(hostname); " + ContainerReport.script("true"))
                .endContainer()
                .endSpec()
                .build());

        ContainerReport report = pods.report("hello", "main");
        assertThat(cluster.client()
                        .pods()
                        .inNamespace(cluster.namespace())
                        .withName("hello")
                        .getLog())
                .startsWith("hello from hello\n");
        assertThat(report.env()).containsEntry("HOSTNAME", "hello").doesNotContainKey("NVIDIA_VISIBLE_DEVICES");
        assertThat(report.mountAt("/dev/shm")).isPresent();
        assertThat(report.mountAt("/var/run/secrets/kubernetes.io/serviceaccount"))
                .isPresent();
    }
}
