package io.elasticgpu.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.podresources.api.ContainerDevices;
import io.elasticgpu.node.podresources.api.ContainerResources;
import io.elasticgpu.node.podresources.api.ListPodResourcesRequest;
import io.elasticgpu.node.podresources.api.ListPodResourcesResponse;
import io.elasticgpu.node.podresources.api.PodResources;
import io.elasticgpu.node.podresources.api.PodResourcesListerGrpc;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's reading of kubelet's pod-resources API over a real unix socket: while kubelet starts, the device plugins'
 * calls come before that API answers, and the read waits for it instead of failing the pod being admitted.
 */
class PodResourcesClientTest {

    private static final String RESOURCE = "nvidia.com/gpu";

    @Test
    void aReadWaitsForKubeletsApiThatStartsAfterTheCall(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("kubelet.sock");
        try (PodResourcesClient client = new PodResourcesClient(socket, Set.of(RESOURCE))) {
            // The first read fails to connect (no socket yet), as the agent's calls do while kubelet restarts.
            CompletableFuture<Map<ContainerKey, Map<String, List<String>>>> read =
                    CompletableFuture.supplyAsync(client::list);
            Thread.sleep(1_500);
            assertThat(read).as("still waiting for kubelet").isNotDone();
            Server kubelet = UnixSockets.serve(socket, new Lister());
            try {
                assertThat(read.get(PodResourcesClient.ANSWER.toSeconds(), TimeUnit.SECONDS))
                        .isEqualTo(Map.of(new ContainerKey("ns", "pod", "main"), Map.of(RESOURCE, List.of("gpu-0-1"))));
            } finally {
                kubelet.shutdownNow();
            }
        }
    }

    @Test
    void aKubeletThatNeverAnswersIsAnErrorSayingWhatToMount(@TempDir Path dir) {
        try (PodResourcesClient client = new PodResourcesClient(dir.resolve("kubelet.sock"), Set.of(RESOURCE))) {
            assertThatThrownBy(client::list)
                    .isInstanceOf(AllocationException.class)
                    .hasMessageContaining("did not answer within 5 s")
                    .hasMessageContaining("mount /var/lib/kubelet/pod-resources into the agent");
        }
    }

    /** kubelet's List: one container holding one device of {@link #RESOURCE}. */
    private static final class Lister extends PodResourcesListerGrpc.PodResourcesListerImplBase {
        @Override
        public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> answer) {
            answer.onNext(ListPodResourcesResponse.newBuilder()
                    .addPodResources(PodResources.newBuilder()
                            .setNamespace("ns")
                            .setName("pod")
                            .addContainers(ContainerResources.newBuilder()
                                    .setName("main")
                                    .addDevices(ContainerDevices.newBuilder()
                                            .setResourceName(RESOURCE)
                                            .addDeviceIds("gpu-0-1"))))
                    .build());
            answer.onCompleted();
        }
    }
}
