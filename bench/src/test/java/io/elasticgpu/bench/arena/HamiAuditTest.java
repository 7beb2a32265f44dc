package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The arena reads what HAMi gave from HAMi's own annotation, in the encoding HAMi's tests use. */
class HamiAuditTest {

    private static List<String> fixtures() throws IOException {
        return HamiFixtures.lines("hami-allocated-fixtures.txt");
    }

    @Test
    void readsHamisOwnTestFixtures() throws IOException {
        List<String> f = fixtures();
        assertThat(f).hasSize(3);
        assertThat(HamiAudit.parse(f.get(0)))
                .containsOnlyKeys("GPU-annotated-a")
                .containsEntry("GPU-annotated-a", new HamiAudit.Use(3000, 50));
        assertThat(HamiAudit.parse(f.get(1)))
                .containsEntry("GPU-annotated-a", new HamiAudit.Use(3000, 50))
                .containsEntry("GPU-annotated-b", new HamiAudit.Use(4000, 60));
        assertThat(HamiAudit.parse(f.get(2))).hasSize(2);
    }

    @Test
    void sumsEveryCardOfEveryContainer() {
        // Two cards in the first container (separated by ':'), the first card again in the second container.
        assertThat(HamiAudit.parse("GPU-a,NVIDIA,1000,20:GPU-b,NVIDIA,2000,30:;GPU-a,NVIDIA,500,10:;"))
                .containsEntry("GPU-a", new HamiAudit.Use(1500, 30))
                .containsEntry("GPU-b", new HamiAudit.Use(2000, 30));
        assertThatThrownBy(() -> HamiAudit.parse("GPU-a,NVIDIA,1000:;")).hasMessageContaining("GPU-a,NVIDIA,1000");
    }

    @Test
    void aCardIsOverCommittedWhenItsPodsTakeMoreCoresOrMemoryThanItRegistered() {
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName("n")
                .addToAnnotations(
                        HamiRegistration.REGISTER,
                        "[{\"id\":\"GPU-a\",\"count\":10,\"devmem\":8192,\"devcore\":100,\"type\":\"NVIDIA-T4\","
                                + "\"health\":true},"
                                + "{\"id\":\"GPU-b\",\"index\":1,\"count\":10,\"devmem\":8192,\"devcore\":100,"
                                + "\"type\":\"NVIDIA-T4\",\"health\":true}]")
                .endMetadata()
                .build();
        List<Pod> fits = List.of(
                bound("p0", "GPU-a,NVIDIA,4096,60:;"),
                bound("p1", "GPU-a,NVIDIA,4096,40:;"),
                bound("p2", "GPU-b,NVIDIA,8192,100:;"),
                pending("p3"));
        assertThat(HamiAudit.overCommitted(fits, List.of(node))).isZero();
        assertThat(HamiAudit.overCommitted(
                        List.of(bound("p0", "GPU-a,NVIDIA,4096,60:;"), bound("p1", "GPU-a,NVIDIA,1024,50:;")),
                        List.of(node)))
                .as("110 % of cores")
                .isEqualTo(1);
        assertThat(HamiAudit.overCommitted(
                        List.of(bound("p0", "GPU-b,NVIDIA,8192,10:;"), bound("p1", "GPU-b,NVIDIA,1,10:;")),
                        List.of(node)))
                .as("a MiB over")
                .isEqualTo(1);
        assertThat(HamiAudit.overCommitted(List.of(bound("p0", "GPU-unknown,NVIDIA,1,1:;")), List.of(node)))
                .as("a card no node registered")
                .isEqualTo(1);
    }

    @Test
    void aCardIsOverAskedWhenThePodsHamiPutOnItAskedMoreThanIt() {
        // HAMi's figures say nothing is used (a card registered with no memory gives whole-card pods 0 MiB and 0 %),
        // the shares asked say two whole cards on one.
        List<Pod> two = List.of(
                bound("w0", "GPU-a,NVIDIA,0,0:;"),
                bound("w1", "GPU-a,NVIDIA,0,0:;"),
                bound("s", "GPU-b,NVIDIA,0,30:;"));
        java.util.Map<String, io.elasticgpu.core.model.Ask> askByPod = java.util.Map.of(
                "w0",
                io.elasticgpu.core.model.Ask.wholeCards(1, 1, 1),
                "w1",
                io.elasticgpu.core.model.Ask.wholeCards(1, 1, 1),
                "s",
                io.elasticgpu.core.model.Ask.computeSlice(1, 1, 300));
        assertThat(HamiAudit.overAsked(two, p -> askByPod.get(p.getMetadata().getName())))
                .isEqualTo(1);
        assertThat(HamiAudit.overAsked(
                        two.subList(1, 3), p -> askByPod.get(p.getMetadata().getName())))
                .isZero();
    }

    @Test
    void aBoundGpuPodWithoutHamisAnnotationIsUnaccounted() {
        Pod lost = new PodBuilder(pending("lost"))
                .editSpec()
                .withNodeName("n")
                .editFirstContainer()
                .editResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        assertThat(HamiAudit.unaccounted(List.of(lost, bound("ok", "GPU-a,NVIDIA,1,1:;"), pending("waiting"))))
                .isEqualTo(1);
    }

    private static Pod bound(String name, String allocated) {
        return new PodBuilder(pending(name))
                .editMetadata()
                .addToAnnotations(HamiAudit.ALLOCATED, allocated)
                .endMetadata()
                .editSpec()
                .withNodeName("n")
                .endSpec()
                .build();
    }

    private static Pod pending(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }
}
