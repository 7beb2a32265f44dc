package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ModelTableTest {

    private static final ModelTable SHIPPED = ModelTable.shipped();
    private static final Set<String> CONVERTED = new HashSet<>();

    /** TFLOPS x 100 / peak, rounded up to a whole percent; the share in milli-cards is that x 10. */
    @ParameterizedTest(name = "{1} {2} TFLOPS on {0} take {3} milli")
    @CsvSource(delimiter = ';', textBlock = """
        # 5 x 100 / 19.5 = 25.64, up to 26 %
        NVIDIA A100-SXM4-40GB; fp32; 5; 260
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-SXM4-40GB; fp16; 50; 170
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-SXM4-40GB; bf16; 50; 170
        # 5 x 100 / 19.5 = 25.64, up to 26 %
        NVIDIA A100-SXM4-80GB; fp32; 5; 260
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-SXM4-80GB; fp16; 50; 170
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-SXM4-80GB; bf16; 50; 170
        # 5 x 100 / 19.5 = 25.64, up to 26 %
        NVIDIA A100-PCIE-40GB; fp32; 5; 260
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-PCIE-40GB; fp16; 50; 170
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100-PCIE-40GB; bf16; 50; 170
        # 5 x 100 / 19.5 = 25.64, up to 26 %
        NVIDIA A100 80GB PCIe; fp32; 5; 260
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100 80GB PCIe; fp16; 50; 170
        # 50 x 100 / 312 = 16.03, up to 17 %
        NVIDIA A100 80GB PCIe; bf16; 50; 170
        # 5 x 100 / 67 = 7.46, up to 8 %
        NVIDIA H100 80GB HBM3; fp32; 5; 80
        # 50 x 100 / 989.5 = 5.05, up to 6 %
        NVIDIA H100 80GB HBM3; fp16; 50; 60
        # 50 x 100 / 989.5 = 5.05, up to 6 %
        NVIDIA H100 80GB HBM3; bf16; 50; 60
        # 5 x 100 / 51 = 9.80, up to 10 %
        NVIDIA H100 PCIe; fp32; 5; 100
        # 50 x 100 / 756.5 = 6.61, up to 7 %
        NVIDIA H100 PCIe; fp16; 50; 70
        # 50 x 100 / 756.5 = 6.61, up to 7 %
        NVIDIA H100 PCIe; bf16; 50; 70
        # 5 x 100 / 60 = 8.33, up to 9 %
        NVIDIA H100 NVL; fp32; 5; 90
        # 50 x 100 / 835.5 = 5.98, up to 6 %
        NVIDIA H100 NVL; fp16; 50; 60
        # 50 x 100 / 835.5 = 5.98, up to 6 %
        NVIDIA H100 NVL; bf16; 50; 60
        # 5 x 100 / 67 = 7.46, up to 8 %
        NVIDIA H200; fp32; 5; 80
        # 50 x 100 / 989.5 = 5.05, up to 6 %
        NVIDIA H200; fp16; 50; 60
        # 50 x 100 / 989.5 = 5.05, up to 6 %
        NVIDIA H200; bf16; 50; 60
        # 5 x 100 / 60 = 8.33, up to 9 %
        NVIDIA H200 NVL; fp32; 5; 90
        # 50 x 100 / 835.5 = 5.98, up to 6 %
        NVIDIA H200 NVL; fp16; 50; 60
        # 50 x 100 / 835.5 = 5.98, up to 6 %
        NVIDIA H200 NVL; bf16; 50; 60
        # 5 x 100 / 91.6 = 5.46, up to 6 %
        NVIDIA L40S; fp32; 5; 60
        # 50 x 100 / 362.05 = 13.81, up to 14 %
        NVIDIA L40S; fp16; 50; 140
        # 50 x 100 / 362.05 = 13.81, up to 14 %
        NVIDIA L40S; bf16; 50; 140
        # 5 x 100 / 30.3 = 16.50, up to 17 %
        NVIDIA L4; fp32; 5; 170
        # 50 x 100 / 121 = 41.32, up to 42 %
        NVIDIA L4; fp16; 50; 420
        # 50 x 100 / 121 = 41.32, up to 42 %
        NVIDIA L4; bf16; 50; 420
        # 5 x 100 / 31.2 = 16.03, up to 17 %
        NVIDIA A10; fp32; 5; 170
        # 50 x 100 / 125 = 40.00, up to 40 %
        NVIDIA A10; fp16; 50; 400
        # 50 x 100 / 125 = 40.00, up to 40 %
        NVIDIA A10; bf16; 50; 400
        # 5 x 100 / 8.1 = 61.73, up to 62 %
        Tesla T4; fp32; 5; 620
        # 50 x 100 / 65 = 76.92, up to 77 %
        Tesla T4; fp16; 50; 770
        # 5 x 100 / 15.7 = 31.85, up to 32 %
        Tesla V100-SXM2-16GB; fp32; 5; 320
        # 50 x 100 / 125 = 40.00, up to 40 %
        Tesla V100-SXM2-16GB; fp16; 50; 400
        # 5 x 100 / 15.7 = 31.85, up to 32 %
        Tesla V100-SXM2-32GB; fp32; 5; 320
        # 50 x 100 / 125 = 40.00, up to 40 %
        Tesla V100-SXM2-32GB; fp16; 50; 400
        # 5 x 100 / 14 = 35.71, up to 36 %
        Tesla V100-PCIE-16GB; fp32; 5; 360
        # 50 x 100 / 112 = 44.64, up to 45 %
        Tesla V100-PCIE-16GB; fp16; 50; 450
        # 5 x 100 / 14 = 35.71, up to 36 %
        Tesla V100-PCIE-32GB; fp32; 5; 360
        # 50 x 100 / 112 = 44.64, up to 45 %
        Tesla V100-PCIE-32GB; fp16; 50; 450
        # 5 x 100 / 9.3 = 53.76, up to 54 %
        Tesla P100-PCIE-16GB; fp32; 5; 540
        # 50 x 100 / 18.7 = 267.38, up to 268 %: a whole card or more, not offered
        Tesla P100-PCIE-16GB; fp16; 50; -1
        # 5 x 100 / 10.6 = 47.17, up to 48 %
        Tesla P100-SXM2-16GB; fp32; 5; 480
        # 50 x 100 / 21.2 = 235.85, up to 236 %: a whole card or more, not offered
        Tesla P100-SXM2-16GB; fp16; 50; -1
        """)
    void tflopsBecomeAShareOfEveryModelRoundedUpToAPercent(String model, String precision, int tflops, int milli) {
        ComputeAsk ask = SHIPPED.ask(tflops, Precision.parse(precision));
        assertThat(ask.offers(model)).isEqualTo(milli > 0);
        assertThat(ask.milliOn(model)).isEqualTo(milli > 0 ? milli : Card.WHOLE);
        CONVERTED.add(model);
    }

    @AfterAll
    static void everyModelOfTheShippedTableIsConverted() {
        assertThat(CONVERTED)
                .containsExactlyInAnyOrderElementsOf(
                        SHIPPED.models().stream().map(GpuModel::name).toList());
    }

    @Test
    void everyModelCitesItsDatasheetAndHasAnFp32Peak() {
        for (GpuModel m : SHIPPED.models()) {
            assertThat(m.source()).as(m.name()).startsWith("https://");
            assertThat(m.peak(Precision.FP32)).as(m.name()).isPresent();
        }
    }

    @Test
    void aliasesAreTheSameModel() {
        ComputeAsk ask = SHIPPED.ask(5, Precision.FP32);
        // the trace's V100M32 is the SXM2 32 GB card: 5 x 100 / 15.7 = 31.85, up to 32 %
        assertThat(ask.milliOn("V100M32")).isEqualTo(320);
        assertThat(SHIPPED.find("T4").orElseThrow().name()).isEqualTo("Tesla T4");
        assertThat(SHIPPED.find("G2")).isEmpty();
    }

    /**
     * A node's label carries the model with its spaces made dashes ({@code NVIDIA-A100-SXM4-80GB}), and so did the
     * demo's nodes, as may cards named by hand: the same model, found and given its share, in any case.
     */
    @Test
    void aModelNamedInItsLabelFormOrAnotherCaseIsTheSameModel() {
        assertThat(GpuModel.key("NVIDIA A100-SXM4-80GB")).isEqualTo("nvidia-a100-sxm4-80gb");
        assertThat(GpuModel.key(" NVIDIA-A100-SXM4-80GB ")).isEqualTo("nvidia-a100-sxm4-80gb");
        assertThat(GpuModel.key("nvidia_a100__sxm4 80gb")).isEqualTo("nvidia-a100-sxm4-80gb");
        assertThat(SHIPPED.find("NVIDIA-A100-SXM4-80GB").orElseThrow().name()).isEqualTo("NVIDIA A100-SXM4-80GB");
        assertThat(SHIPPED.find("Tesla-T4").orElseThrow().name()).isEqualTo("Tesla T4");
        assertThat(SHIPPED.find("nvidia-h100-80gb-hbm3").orElseThrow().name()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(SHIPPED.free("Tesla-T4", 500, Precision.FP32).tflops()).isEqualByComparingTo("4.05");
        ComputeAsk ask = SHIPPED.ask(100, Precision.BF16);
        assertThat(ask.milliOn("NVIDIA-A100-SXM4-80GB")).isEqualTo(330);
        assertThat(ask.givenOn("NVIDIA-A100-SXM4-80GB")).isEqualTo(102.96);
        assertThat(SHIPPED.find("NVIDIA-A100")).as("a prefix is another model").isEmpty();
    }

    @Test
    void anOperatorsTableThatNamesAModelTwiceInTwoFormsIsRefused() {
        assertThatThrownBy(() -> ModelTable.parse(
                        "models.csv",
                        ModelTable.HEADER + "\nNVIDIA X1,,1,-,-,-,-,datasheet\nnvidia-x1,,2,-,-,-,-,datasheet\n"))
                .hasMessageContaining("line 3 (model nvidia-x1): name nvidia-x1 is on line 2 already");
    }

    @Test
    void theSameTflopsAreASmallerShareOfAnH100ThanOfAnA100() {
        ComputeAsk ask = SHIPPED.ask(100, Precision.BF16);
        // 100 x 100 / 989.5 = 10.11, up to 11 %; 100 x 100 / 312 = 32.05, up to 33 %
        assertThat(ask.milliOn("NVIDIA H100 80GB HBM3")).isEqualTo(110);
        assertThat(ask.milliOn("NVIDIA A100-SXM4-80GB")).isEqualTo(330);
        // T4 and V100 have no bf16: not offered
        assertThat(ask.offers("Tesla T4")).isFalse();
        assertThat(ask.offers("Tesla V100-SXM2-16GB")).isFalse();
    }

    @Test
    void anAskNoModelCanGiveIsRefusedWithTheFix() {
        assertThatThrownBy(() -> SHIPPED.ask(0, Precision.BF16)).hasMessage("TFLOPS asked must be > 0, was 0");
        assertThatThrownBy(() -> SHIPPED.ask(-3, Precision.BF16)).hasMessage("TFLOPS asked must be > 0, was -3");
        assertThatThrownBy(() -> SHIPPED.ask(2000, Precision.BF16))
                .hasMessage("2000 TFLOPS of bf16 is a whole card or more on every model in the table; ask less, or"
                        + " whole cards");
        assertThatThrownBy(() -> Precision.parse("fp8"))
                .hasMessage("precision \"fp8\" is not one of fp32, tf32, fp16, bf16, int8");
        ModelTable oldCards = ModelTable.parse("old.csv", ModelTable.HEADER + "\nTesla T4,,8.1,-,65,-,130,https://x\n");
        assertThatThrownBy(() -> oldCards.ask(5, Precision.BF16))
                .hasMessage("no card model in the table gives bf16; ask one of fp32, fp16, int8");
    }

    static Stream<Arguments> malformedTables() {
        return Stream.of(
                Arguments.of(
                        "no header",
                        "A100,,1,2,3,4,5,https://x",
                        "t.csv line 1: the first line must be the header"
                                + " \"name,aliases,fp32,tf32,fp16,bf16,int8,source\", was"
                                + " \"A100,,1,2,3,4,5,https://x\""),
                Arguments.of(
                        "too few fields",
                        "HEADER\nA100,,1,2,3,https://x",
                        "t.csv line 2 (model A100): 6 fields, a row has 8:"
                                + " name,aliases,fp32,tf32,fp16,bf16,int8,source"),
                Arguments.of(
                        "not a number",
                        "HEADER\nA100,,1,fast,3,4,5,https://x",
                        "t.csv line 2 (model A100): field tf32 is \"fast\"; write the peak"
                                + " dense TFLOPS (> 0, e.g. 19.5) or - when the card lacks it"),
                Arguments.of(
                        "negative",
                        "HEADER\n# c\nA100,,1,2,3,-4,5,https://x",
                        "t.csv line 3 (model A100): field bf16 is \"-4\"; write the peak"
                                + " dense TFLOPS (> 0, e.g. 19.5) or - when the card lacks it"),
                Arguments.of(
                        "no fp32",
                        "HEADER\nA100,,-,2,3,4,5,https://x",
                        "t.csv line 2 (model A100): field fp32 is -; every card has an" + " fp32 peak, write it"),
                Arguments.of(
                        "no source",
                        "HEADER\nA100,,1,2,3,4,5,",
                        "t.csv line 2 (model A100): field source is empty; cite the"
                                + " datasheet the figures come from"),
                Arguments.of(
                        "no name",
                        "HEADER\n,,1,2,3,4,5,https://x",
                        "t.csv line 2 (model ?): field name is empty; write the product" + " name NVML reports"),
                Arguments.of(
                        "a name twice",
                        "HEADER\nA,B,1,2,3,4,5,u\nC,B,1,2,3,4,5,u",
                        "t.csv line 3 (model C): name B is on line 2 already (names match whatever their case and"
                                + " separators); give each model and alias once"),
                Arguments.of(
                        "empty",
                        "# nothing",
                        "t.csv: no header line; a model table starts with"
                                + " \"name,aliases,fp32,tf32,fp16,bf16,int8,source\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedTables")
    void aMalformedTableNamesItsLineModelAndField(String name, String text, String message) {
        String table = text.replace("HEADER", ModelTable.HEADER).replace("\\n", "\n");
        assertThatThrownBy(() -> ModelTable.parse("t.csv", table)).hasMessage(message);
    }

    @Test
    void anOverrideReplacesTheModelsItNamesAndAddsOthers() {
        ModelTable override = ModelTable.parse(
                "override.csv",
                ModelTable.HEADER + "\nTesla T4,T4,9,-,70,-,130,https://x\nG2,,20,-,100,-,-,https://internal\n");
        ModelTable merged = SHIPPED.extendedBy(override);
        assertThat(merged.find("T4").orElseThrow().peak(Precision.FP32).orElseThrow())
                .isEqualByComparingTo("9");
        assertThat(merged.find("G2")).isPresent();
        assertThat(merged.models()).hasSize(SHIPPED.models().size() + 1);
        ModelTable clash = ModelTable.parse("bad.csv", ModelTable.HEADER + "\nMine,T4,9,-,70,-,130,https://x\n");
        assertThatThrownBy(() -> SHIPPED.extendedBy(clash))
                .hasMessage("model table: T4 names both Tesla T4 and Mine; the override must replace Tesla T4 or give"
                        + " its alias up");
    }

    @Test
    void aTflopsAskTakesItsShareOfEachCardsModelAndSkipsUnknownModels() {
        Ask ask = Ask.computeSlice(0, 0, 1).withCompute(SHIPPED.ask(100, Precision.BF16));
        Card h100 = Card.of(0, "h", "NVIDIA H100 80GB HBM3", 81559);
        Card a100 = Card.of(0, "a", "NVIDIA A100-SXM4-80GB", 81920);
        Card unknown = Card.of(0, "g", "G2", 16384);
        assertThat(ask.milliPerCard()).isZero();
        assertThat(List.of(ask.milliOn(h100), ask.milliOn(a100))).containsExactly(110, 330);
        assertThat(ask.acceptsModel("G2")).isFalse();
        assertThat(ask.shareOf(unknown)).isEqualTo(Card.WHOLE);
        assertThatThrownBy(() -> new Ask(0, 0, 1, 300, 0, List.of(), 0, SHIPPED.ask(100, Precision.BF16)))
                .hasMessage("ask: asks 100 TFLOPS with 300 milli per card on 1 cards; ask compute in TFLOPS or as"
                        + " a share, on at least one card");
    }

    /** Free TFLOPS of a card: its model's peak x (1000 - milli held) / 1000, two decimals rounded down. */
    @ParameterizedTest(name = "{0} with {1} milli held: {3} {2} TFLOPS free")
    @CsvSource(delimiter = ';', textBlock = """
        # 989.5 x 0.89 = 880.655, down to 880.65
        NVIDIA H100 80GB HBM3; 110; bf16; 880.65
        # by an alias: 312 x 0.67 = 209.04
        A100; 330; bf16; 209.04
        # nothing held: the peak
        NVIDIA L4; 0; fp32; 30.30
        # 19.5 x 0.005 = 0.0975, down to 0.09
        NVIDIA A100-SXM4-40GB; 995; fp32; 0.09
        # held whole, or over-committed: nothing free, not a negative figure
        NVIDIA A100-SXM4-40GB; 1000; bf16; 0.00
        NVIDIA A100-SXM4-40GB; 1200; bf16; 0.00
        """)
    void aCardsFreeTflopsAreItsModelsPeakTimesTheComputeNotHeld(
            String model, int milliHeld, String precision, String free) {
        CardTflops tflops = SHIPPED.free(model, milliHeld, Precision.parse(precision));
        assertThat(tflops.known()).isTrue();
        assertThat(tflops.tflops()).isEqualByComparingTo(free);
        assertThat(tflops.unknown()).isNull();
    }

    @Test
    void aCardOfAModelTheTableLacksOrWithoutThePrecisionHasNoFigureAndSaysWhyRatherThanZero() {
        CardTflops g2 = SHIPPED.free("G2", 0, Precision.BF16);
        assertThat(g2.known()).isFalse();
        assertThat(g2.tflops()).isNull();
        assertThat(g2.unknown()).isEqualTo("unknown model");
        CardTflops t4 = SHIPPED.free("Tesla T4", 0, Precision.BF16);
        assertThat(t4.known()).isFalse();
        assertThat(t4.unknown()).isEqualTo("no bf16 figure");
        assertThat(SHIPPED.free("Tesla T4", 500, Precision.FP32).tflops()).isEqualByComparingTo("4.05");
    }

    @Test
    void theModelsAnAskIsOfferedOnComeLargestShareFirstEachOnce() {
        ComputeAsk ask = SHIPPED.ask(10, Precision.BF16);
        List<GpuModel> models = SHIPPED.byShareDescending(ask);
        // the L4 (121 bf16) has the lowest peak: 10 x 100 / 121 = 8.26, up to 9 %
        assertThat(models.getFirst().name()).isEqualTo("NVIDIA L4");
        assertThat(ask.milliOn(models.getFirst().name())).isEqualTo(90);
        // H200 and H100 SXM (989.5): 1.01, up to 2 %, the smallest share
        assertThat(ask.milliOn(models.getLast().name())).isEqualTo(20);
        assertThat(models).extracting(GpuModel::name).doesNotHaveDuplicates().doesNotContain("Tesla T4");
        assertThat(models)
                .extracting(m -> ask.milliOn(m.name()))
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        // 1 TFLOPS is 1 % of every card (a share rounds up to a whole percent): the lowest peak leads
        assertThat(SHIPPED.byShareDescending(SHIPPED.ask(1, Precision.BF16))
                        .getFirst()
                        .name())
                .isEqualTo("NVIDIA L4");
    }
}
