package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TflopsDecisionsTest {

    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String A100 = "NVIDIA A100-SXM4-80GB";

    private final ClusterCache cache = new ClusterCache(p -> true, 1);
    private final Decisions decisions = new Decisions(BinpackPolicy::new);

    private static Node node(String name, String model) {
        List<NodeInventory.Card> cards = List.of(
                new NodeInventory.Card(0, "GPU-" + name + "-0", model, 81_920, true, 0),
                new NodeInventory.Card(1, "GPU-" + name + "-1", model, 81_920, true, 0));
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(Annotations.INVENTORY, new NodeInventory(cards, List.of()).toJson())
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity("64"))
                .addToAllocatable("memory", new Quantity("512Gi"))
                .addToAllocatable("pods", new Quantity("110"))
                .endStatus()
                .build();
    }

    private static Pod tflopsPod(Map<String, String> limits, String precision) {
        Pod p = pod("ns", "p", "u", container("main", limits));
        if (precision != null) {
            p.getMetadata().setAnnotations(Map.of(Annotations.TFLOPS_PRECISION, precision));
        }
        return p;
    }

    private PodGrant.Share grantOn(String node, PodAsk ask) {
        var state = cache.snapshot().state(node);
        PodFit fit = PodFit.of(ask.asks(), state, new BinpackPolicy());
        assertThat(fit).isInstanceOf(PodFit.Fits.class);
        PodGrant grant = ((PodFit.Fits) fit).grant(cache.snapshot().node(node).orElseThrow(), ask);
        return grant.containers().get("main").getFirst();
    }

    @Test
    void theSameTflopsAreASmallerShareOnAnH100NodeThanOnAnA100NodeAndTheAllocationRecordsBoth() {
        cache.upsertNode(node("h100", H100));
        cache.upsertNode(node("a100", A100));
        PodAsk ask = PodAsk.of(
                tflopsPod(Map.of("elasticgpu.io/gpu-tflops", "100", "elasticgpu.io/gpu-memory", "8192"), null),
                PodAsks.Units.DEFAULT);
        // bf16 by default: 100 x 100 / 989.5 = 10.11, up to 11 % of an H100; 100 x 100 / 312 = 32.05, up to 33 %
        // of an A100; given: 989.5 x 0.11 = 108.845 and 312 x 0.33 = 102.96, kept to two decimals rounded down
        assertThat(grantOn("h100", ask)).isEqualTo(new PodGrant.Share(0, "GPU-h100-0", 110, 8192, 100, "bf16", 108.84));
        assertThat(grantOn("a100", ask)).isEqualTo(new PodGrant.Share(0, "GPU-a100-0", 330, 8192, 100, "bf16", 102.96));
        assertThat(PodGrant.fromJson(new PodGrant("h100", Map.of("main", List.of(grantOn("h100", ask)))).toJson())
                        .containers()
                        .get("main")
                        .getFirst()
                        .tflops())
                .isEqualTo(100);
    }

    @Test
    void theAnnotatedPrecisionCountsAndCardsOfUnknownModelsAreNotOffered() {
        cache.upsertNode(node("h100", H100));
        cache.upsertNode(node("g2", "G2"));
        PodAsk fp32Ask = PodAsk.of(
                tflopsPod(Map.of("elasticgpu.io/gpu-tflops", "20", "elasticgpu.io/gpu-memory", "1024"), "fp32"),
                PodAsks.Units.DEFAULT);
        // fp32: 20 x 100 / 67 = 29.85, up to 30 %
        assertThat(grantOn("h100", fp32Ask).milli()).isEqualTo(300);
        Filtered f = decisions.filter(fp32Ask, List.of("h100", "g2"), cache.snapshot());
        assertThat(f.fit()).containsExactly("h100");
        assertThat(f.reasons()).containsExactly(Map.entry("model_not_accepted", 1));
        // an operator's table that knows G2 offers it
        ModelTable withG2 = ModelTable.shipped()
                .extendedBy(ModelTable.parse("ops.csv", ModelTable.HEADER + "\nG2,,40,-,160,-,-,https://internal\n"));
        PodAsk knownAsk = PodAsk.of(
                tflopsPod(Map.of("elasticgpu.io/gpu-tflops", "20", "elasticgpu.io/gpu-memory", "1024"), "fp32"),
                PodAsks.Units.DEFAULT,
                withG2);
        // 20 x 100 / 40 = 50 %
        assertThat(grantOn("g2", knownAsk).milli()).isEqualTo(500);
    }

    static Stream<Arguments> nonsense() {
        return Stream.of(
                Arguments.of(
                        "zero TFLOPS",
                        "0",
                        "8192",
                        null,
                        null,
                        "container main: elasticgpu.io/gpu-tflops must be a whole number" + " of TFLOPS > 0, was 0"),
                Arguments.of(
                        "negative TFLOPS",
                        "-5",
                        "8192",
                        null,
                        null,
                        "container main: elasticgpu.io/gpu-tflops must be a whole number" + " of TFLOPS > 0, was -5"),
                Arguments.of(
                        "with a core share",
                        "100",
                        "8192",
                        "30",
                        null,
                        "container main asks elasticgpu.io/gpu-tflops: 100 and"
                                + " elasticgpu.io/gpu-core: 30; ask compute one way: drop"
                                + " elasticgpu.io/gpu-core to be given the share of whichever card"
                                + " it lands on"),
                Arguments.of(
                        "without memory",
                        "100",
                        null,
                        null,
                        null,
                        "container main asks elasticgpu.io/gpu-tflops: 100 without"
                                + " elasticgpu.io/gpu-memory; add the GPU memory it needs (the node"
                                + " agent hands out a card's share through its memory)"),
                Arguments.of(
                        "unknown precision",
                        "100",
                        "8192",
                        null,
                        "fp8",
                        "container main asks elasticgpu.io/gpu-tflops: 100: precision"
                                + " \"fp8\" is not one of fp32, tf32, fp16, bf16, int8 (annotation"
                                + " elasticgpu.io/tflops-precision)"),
                Arguments.of(
                        "more than a card",
                        "999",
                        "8192",
                        null,
                        "fp32",
                        "container main asks elasticgpu.io/gpu-tflops: 999: 999 TFLOPS of"
                                + " fp32 is a whole card or more on every model in the table; ask"
                                + " less, or whole cards (annotation elasticgpu.io/tflops-precision)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nonsense")
    void nonsenseIsRefusedWithWhatToChange(
            String name, String tflops, String memory, String core, String precision, String message) {
        Map<String, String> limits = new java.util.LinkedHashMap<>();
        limits.put("elasticgpu.io/gpu-tflops", tflops);
        if (memory != null) {
            limits.put("elasticgpu.io/gpu-memory", memory);
        }
        if (core != null) {
            limits.put("elasticgpu.io/gpu-core", core);
        }
        assertThatThrownBy(() -> PodAsk.of(tflopsPod(limits, precision), PodAsks.Units.DEFAULT))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage(message);
    }

    @Test
    void aPrecisionNoCardInTheTableHasIsRefused() {
        ModelTable oldCards = ModelTable.parse("old.csv", ModelTable.HEADER + "\nTesla T4,,8.1,-,65,-,130,https://x\n");
        Pod bf16 = tflopsPod(Map.of("elasticgpu.io/gpu-tflops", "10", "elasticgpu.io/gpu-memory", "1024"), "bf16");
        assertThatThrownBy(() -> PodAsk.of(bf16, PodAsks.Units.DEFAULT, oldCards))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage("container main asks elasticgpu.io/gpu-tflops: 10: no card model in the table gives bf16;"
                        + " ask one of fp32, fp16, int8 (annotation elasticgpu.io/tflops-precision)");
    }
}
