package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.bench.cluster.ReplayObjects;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each contender is asked for exactly the share the trace asks, in its own names. */
class ContenderTest {

    private static final TracePod SHARE = new TracePod("share", Ask.computeSlice(4000, 8192, 300));
    private static final TracePod TWO_CARDS = new TracePod("two", Ask.wholeCards(8000, 16384, 2));
    private static final TracePod CPU = new TracePod("cpu", Ask.cpuOnly(1000, 1024));
    private static final Node NODE = Node.of(
            "n",
            96_000,
            393_216,
            110,
            List.of(Card.of(0, "GPU-n-0", "T4", 15_360), Card.of(1, "GPU-n-1", "T4", 15_360)));

    private static Map<String, Quantity> limits(Pod pod) {
        return pod.getSpec().getContainers().getFirst().getResources().getLimits();
    }

    private static Map<String, Quantity> requests(Pod pod) {
        return pod.getSpec().getContainers().getFirst().getResources().getRequests();
    }

    @Test
    void hamiIsAskedAShareOfCoresAndTheSameShareOfMemoryAndWholeCardsAsACount() {
        Contender hami = Contender.of("hami-binpack-spread");
        Pod share = hami.pod(SHARE, 0, null);
        assertThat(limits(share))
                .containsOnly(
                        Map.entry(ResourceNames.NVIDIA_GPU, new Quantity("1")),
                        Map.entry(ResourceNames.HAMI_GPU_CORES, new Quantity("30")),
                        Map.entry(ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE, new Quantity("30")));
        assertThat(requests(share))
                .containsEntry("cpu", new Quantity("4000m"))
                .containsKeys(ResourceNames.NVIDIA_GPU)
                .doesNotContainKeys(ResourceNames.GPU_CORE);
        assertThat(share.getSpec().getSchedulerName()).isEqualTo(HamiScheduler.SCHEDULER_NAME);
        assertThat(share.getMetadata().getAnnotations()).containsEntry(ReplayObjects.INDEX, "0");
        assertThat(limits(hami.pod(TWO_CARDS, 1, null)))
                .containsOnly(Map.entry(ResourceNames.NVIDIA_GPU, new Quantity("2")));
        assertThat(limits(hami.pod(CPU, 2, null))).isNullOrEmpty();
    }

    @Test
    void ourPolicyGivenHamisPodsGetsTheVeryPodsHamiGetsForItsOwnScheduler() {
        Contender ours = Contender.of("elastic-hami-names");
        assertThat(ours).isEqualTo(new Contender.Elastic("elastic", true));
        assertThat(ours.name()).isEqualTo("elastic-hami-names");
        com.fasterxml.jackson.databind.node.ObjectNode config =
                new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
        config.putArray("profiles").addObject().put("schedulerName", "egpu");
        Stage stage = new Stage(
                null, new ChartConfig(config, List.of(), ChartConfig.Jvm.NONE, ChartConfig.Jvm.NONE), null, null);
        Pod share = ours.pod(SHARE, 0, stage);
        assertThat(limits(share))
                .isEqualTo(limits(Contender.of("hami-binpack-spread").pod(SHARE, 0, null)));
        assertThat(share.getSpec().getSchedulerName()).isEqualTo("egpu");
        assertThat(limits(Contender.of("fgd").pod(SHARE, 0, stage))).containsOnlyKeys(ResourceNames.GPU_CORE);
        assertThat(ours.node("n", NODE).getStatus().getAllocatable())
                .as("our agent's 100 shares per card")
                .containsEntry(ResourceNames.NVIDIA_GPU, new Quantity("200"))
                .containsKey(ResourceNames.GPU_CORE);
    }

    @Test
    void withoutSharingEveryGpuPodTakesWholeCards() {
        Contender none = Contender.of("no-sharing");
        assertThat(limits(none.pod(SHARE, 0, null)))
                .containsOnly(Map.entry(ResourceNames.NVIDIA_GPU, new Quantity("1")));
        assertThat(limits(none.pod(TWO_CARDS, 1, null)))
                .containsOnly(Map.entry(ResourceNames.NVIDIA_GPU, new Quantity("2")));
        assertThat(Contender.WholeCards.wholeCards(new Ask(1000, 1024, 3, 400, 0, List.of())))
                .as("3 x 0.4 is 1.2 cards")
                .isEqualTo(2);
        assertThat(none.pod(SHARE, 0, null).getSpec().getSchedulerName()).isEqualTo("default-scheduler");
        var node = none.node("n", NODE);
        assertThat(node.getStatus().getAllocatable()).containsEntry(ResourceNames.NVIDIA_GPU, new Quantity("2"));
    }

    @Test
    void hamisNodeCarriesWhatItsDevicePluginRegisters() {
        var node = Contender.of("hami-binpack-binpack").node("n", NODE);
        List<HamiRegistration.Device> devices =
                HamiRegistration.read(node.getMetadata().getAnnotations().get(HamiRegistration.REGISTER));
        assertThat(devices).extracting(HamiRegistration.Device::count).containsExactly(10, 10);
        assertThat(devices).extracting(HamiRegistration.Device::devmem).containsExactly(15_360, 15_360);
        assertThat(node.getMetadata().getAnnotations().get(HamiRegistration.HANDSHAKE))
                .startsWith("Reported_");
        assertThat(node.getStatus().getAllocatable()).containsEntry(ResourceNames.NVIDIA_GPU, new Quantity("20"));
    }

    @Test
    void noSharingCountsCardsOverANodeFromKubeSchedulersOwnRequests() {
        Contender none = Contender.of("no-sharing");
        Pod three = onNode(none.pod(new TracePod("three", Ask.wholeCards(1000, 1024, 3)), 0, null));
        Pod one = onNode(none.pod(SHARE, 1, null));
        assertThat(none.audit(List.of(one), null, Map.of("n", NODE), null).overCommitted())
                .isZero();
        assertThat(none.audit(List.of(three, one), null, Map.of("n", NODE), null)
                        .overCommitted())
                .isEqualTo(2);
    }

    @Test
    void namesAreReadWithAMessageSayingWhatIsKnown() {
        assertThat(Contender.of("fgd")).isEqualTo(new Contender.Elastic("fgd", false));
        assertThat(Contender.of("fgd-hami-names")).isEqualTo(new Contender.Elastic("fgd", true));
        assertThat(Contender.of("hami-spread-binpack")).isEqualTo(new Contender.Hami("spread", "binpack"));
        assertThatThrownBy(() -> Contender.of("hami-binpack")).hasMessageContaining("hami-NODE_POLICY-GPU_POLICY");
        assertThatThrownBy(() -> Contender.of("hami-pack-spread")).hasMessageContaining("binpack or spread");
    }

    private static Pod onNode(Pod pod) {
        return new PodBuilder(pod).editSpec().withNodeName("n").endSpec().build();
    }
}
