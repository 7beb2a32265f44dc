package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.controller.webhook.ShareAdmission.Isolation;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which pods asking GPU slices the webhook refuses, and with what message: pod team-a/train, its asks read by
 * PodAsks (gpu-memory in MiB unless said), its share per process as MpsLimits computes it (compute: milli / 10
 * / processes, rounded down, at least 1 %; memory: MiB / processes, rounded down, less the context reserve of 1024
 * MiB unless said, at least 1 MiB left; every share names memory).
 */
class ShareAdmissionTest {

    private static final String PROCESSES = "elasticgpu.io/gpu-processes";
    private static final String MEM = "elasticgpu.io/gpu-memory";
    private static final String CORE = "elasticgpu.io/gpu-core";
    private static final String COUNT = "elasticgpu.io/gpu-count";
    private static final String GPU = "elasticgpu.io/gpu";
    private static final ShareAdmission MPS = new ShareAdmission(Isolation.MPS, PodAsks.Units.DEFAULT);

    private static final String BAD_PROCESSES = "pod team-a/train: annotation elasticgpu.io/gpu-processes must be a"
            + " whole number 1..48 (how many CUDA processes share the GPU share), was \"%s\"; set it to how many CUDA"
            + " processes each container with a GPU slice runs at once, or remove it for 1";
    /** What a memory refusal says of the CUDA context reserve (1024 MiB by default), after each process's MiB. */
    private static final String RESERVE = " no more than the 1024 MiB kept out of a process's MPS memory limit for its"
            + " CUDA context (which MPS does not count; --mps-context-reserve-mib); ";

    private static final String CANNOT_HOLD = "pod team-a/train: container %s asks a GPU slice that CUDA MPS cannot"
            + " hold (this cluster holds slices to their shares with MPS): ";

    static Stream<Arguments> withMps() {
        return Stream.of(
                // 300 milli / 10 / 1 = 30 %; 4096 MiB / 1: held.
                Arguments.of(
                        "30 % and 4 GiB, no annotation (1 process)",
                        pod(Map.of(), container("main", CORE, "30", MEM, "4096")), null),
                // 300 / 10 / 4 = 7.5, 7 % each; 8192 / 4 = 2048 MiB each, 1024 after the context reserve: held.
                Arguments.of(
                        "30 % among 4 processes",
                        pod(Map.of(PROCESSES, "4"), container("main", CORE, "30", MEM, "8192")), null),
                // 4096 / 4 = 1024 MiB each: nothing left after the context reserve.
                Arguments.of(
                        "30 % and 4 GiB among 4 processes",
                        pod(Map.of(PROCESSES, "4"), container("main", CORE, "30", MEM, "4096")),
                        CANNOT_HOLD.formatted("main") + "a share of 4096 MiB on card 0 gives each of its 4 processes"
                                + " 1024 MiB," + RESERVE + "ask for at least 4100 MiB or lower"
                                + " elasticgpu.io/gpu-processes to 3"),
                // Compute only: under MPS its processes could take the whole card's memory.
                Arguments.of(
                        "30 % without memory",
                        pod(Map.of(), container("main", CORE, "30")),
                        CANNOT_HOLD.formatted("main") + "the share on card 0 asks 30 % of compute and no memory;"
                                + " under MPS every share needs memory, or its processes could take all of the card's"
                                + " memory from the shares beside it: add elasticgpu.io/gpu-memory (at least 1025 MiB"
                                + " for 1 process)"),
                // 1024 MiB for 1 process: all of it would be the context's.
                Arguments.of(
                        "30 % and 1 GiB",
                        pod(Map.of(), container("main", CORE, "30", MEM, "1024")),
                        CANNOT_HOLD.formatted("main") + "a share of 1024 MiB on card 0 gives each of its 1 process"
                                + " 1024 MiB," + RESERVE + "ask for at least 1025 MiB"),
                // 10 / 10 / 2 = 0.5 %: less than the whole percent MPS limits a process to.
                Arguments.of(
                        "1 % among 2 processes",
                        pod(Map.of(PROCESSES, "2"), container("main", CORE, "1", MEM, "4096")),
                        CANNOT_HOLD.formatted("main") + "a compute share of 1 % cannot be divided among 2 processes"
                                + " (MPS limits each process to whole percent); ask for at least 2 % or lower"
                                + " elasticgpu.io/gpu-processes"),
                // 470 / 10 / 48 = 0.98 %: refused; the fix asks for 48 %. 49200 / 48 = 1025 MiB: 1 after the reserve.
                Arguments.of(
                        "47 % among 48 processes",
                        pod(Map.of(PROCESSES, "48"), container("main", CORE, "47", MEM, "49200")),
                        CANNOT_HOLD.formatted("main") + "a compute share of 47 % cannot be divided among 48 processes"
                                + " (MPS limits each process to whole percent); ask for at least 48 % or lower"
                                + " elasticgpu.io/gpu-processes"),
                // 480 / 10 / 48 = 1 % each, and 1 MiB each beyond the reserve: held, just.
                Arguments.of(
                        "48 % among 48 processes",
                        pod(Map.of(PROCESSES, "48"), container("main", CORE, "48", MEM, "49200")), null),
                // 3 MiB / 4 = 0 MiB: less than the reserve; no process count would do.
                Arguments.of(
                        "3 MiB among 4 processes",
                        pod(Map.of(PROCESSES, "4"), container("main", MEM, "3")),
                        CANNOT_HOLD.formatted("main") + "a share of 3 MiB on card 0 gives each of its 4 processes"
                                + " 0 MiB," + RESERVE + "ask for at least 4100 MiB"),
                // 4100 MiB / 4 = 1025 MiB each, 1 after the reserve; no compute part: 100 % each.
                Arguments.of(
                        "4100 MiB among 4 processes, memory only",
                        pod(Map.of(PROCESSES, " 4 "), container("main", MEM, "4100")),
                        null),
                // Each of the 2 cards: 3 MiB / 4 = 0 MiB; the first card is named.
                Arguments.of(
                        "3 MiB on each of 2 cards among 4 processes",
                        pod(Map.of(PROCESSES, "4"), container("main", MEM, "3", COUNT, "2")),
                        CANNOT_HOLD.formatted("main") + "a share of 3 MiB on card 0 gives each of its 4 processes"
                                + " 0 MiB," + RESERVE + "ask for at least 4100 MiB"),
                // Whole cards never go through MPS, whatever the process count.
                Arguments.of(
                        "a whole card among 48 processes",
                        pod(Map.of(PROCESSES, "48"), container("main", GPU, "1")),
                        null),
                // gpu-core: 100 is the whole card.
                Arguments.of(
                        "100 % is a whole card", pod(Map.of(PROCESSES, "48"), container("main", CORE, "100")), null),
                // HAMi's names: nvidia.com/gpucores 1 is 10 milli; 10 / 10 / 2 = 0.5 %.
                Arguments.of(
                        "HAMi's 1 % among 2 processes",
                        pod(
                                Map.of(PROCESSES, "2"),
                                container(
                                        "main",
                                        "nvidia.com/gpu",
                                        "1",
                                        "nvidia.com/gpumem",
                                        "4096",
                                        "nvidia.com/gpucores",
                                        "1")),
                        CANNOT_HOLD.formatted("main") + "a compute share of 1 % cannot be divided among 2 processes"
                                + " (MPS limits each process to whole percent); ask for at least 2 % or lower"
                                + " elasticgpu.io/gpu-processes"),
                // Aliyun's GiB: 49 x 1024 MiB / 48 = 1045 MiB each, 21 after the reserve.
                Arguments.of(
                        "Aliyun's 49 GiB among 48 processes",
                        pod(Map.of(PROCESSES, "48"), container("main", "aliyun.com/gpu-mem", "49")),
                        null),
                // 1 x 1024 MiB / 48 = 21 MiB each: less than the reserve; 1 process would not do either.
                Arguments.of(
                        "Aliyun's 1 GiB among 48 processes",
                        pod(Map.of(PROCESSES, "48"), container("main", "aliyun.com/gpu-mem", "1")),
                        CANNOT_HOLD.formatted("main") + "a share of 1024 MiB on card 0 gives each of its 48 processes"
                                + " 21 MiB," + RESERVE + "ask for at least 49200 MiB"),
                // Memory in percent has no MiB until the card is chosen; no compute part: 100 % each.
                Arguments.of(
                        "HAMi's 10 % of memory among 48 processes",
                        pod(
                                Map.of(PROCESSES, "48"),
                                container("main", "nvidia.com/gpu", "1", "nvidia.com/gpumem-percentage", "10")),
                        null),
                // Its compute is checked: 300 / 10 / 2 = 15 % each, held; its memory is the node agent's to check.
                Arguments.of(
                        "HAMi's 10 % of memory and 30 % of compute among 2 processes",
                        pod(
                                Map.of(PROCESSES, "2"),
                                container(
                                        "main",
                                        "nvidia.com/gpu",
                                        "1",
                                        "nvidia.com/gpumem-percentage",
                                        "10",
                                        "nvidia.com/gpucores",
                                        "30")),
                        null),
                // 10 / 10 / 2 = 0.5 %: refused for its compute, as any share.
                Arguments.of(
                        "HAMi's 10 % of memory and 1 % of compute among 2 processes",
                        pod(
                                Map.of(PROCESSES, "2"),
                                container(
                                        "main",
                                        "nvidia.com/gpu",
                                        "1",
                                        "nvidia.com/gpumem-percentage",
                                        "10",
                                        "nvidia.com/gpucores",
                                        "1")),
                        CANNOT_HOLD.formatted("main") + "a compute share of 1 % cannot be divided among 2 processes"
                                + " (MPS limits each process to whole percent); ask for at least 2 % or lower"
                                + " elasticgpu.io/gpu-processes"),
                // An init container's share is divided among the pod's processes too: 20 / 10 / 3 = 0.67 %.
                Arguments.of(
                        "an init container's 2 % among 3 processes",
                        pod(Map.of(PROCESSES, "3"), container("main", CORE, "50", MEM, "4096"))
                                .edit()
                                .editSpec()
                                .addToInitContainers(container("warmup", CORE, "2", MEM, "4096"))
                                .endSpec()
                                .build(),
                        CANNOT_HOLD.formatted("warmup") + "a compute share of 2 % cannot be divided among 3 processes"
                                + " (MPS limits each process to whole percent); ask for at least 3 % or lower"
                                + " elasticgpu.io/gpu-processes"),
                Arguments.of("no GPU at all, 1 process", pod(Map.of(), container("main")), null),
                // The annotation is checked on pods asking slices only.
                Arguments.of(
                        "a bad annotation on a pod asking no GPU",
                        pod(Map.of(PROCESSES, "49"), container("main")),
                        null),
                Arguments.of(
                        "a bad annotation on a pod asking whole cards",
                        pod(Map.of(PROCESSES, "many"), container("main", GPU, "2")),
                        null),
                // HAMi's nvidia.com/gpucores without a memory part is the card alone.
                Arguments.of(
                        "HAMi's 1 % without memory is a whole card",
                        pod(
                                Map.of(PROCESSES, "2"),
                                container("main", "nvidia.com/gpu", "1", "nvidia.com/gpucores", "1")),
                        null),
                Arguments.of(
                        "0 processes",
                        pod(Map.of(PROCESSES, "0"), container("main", CORE, "30")),
                        BAD_PROCESSES.formatted("0")),
                Arguments.of(
                        "49 processes: more than MPS serves",
                        pod(Map.of(PROCESSES, "49"), container("main", MEM, "4096")),
                        BAD_PROCESSES.formatted("49")),
                Arguments.of(
                        "not a number",
                        pod(Map.of(PROCESSES, "two"), container("main", MEM, "4096")),
                        BAD_PROCESSES.formatted("two")),
                // An ask PodAsks refuses (over 100 %) is the extender's and the agent's to name, as before.
                Arguments.of(
                        "an unreadable ask is not refused here",
                        pod(Map.of(PROCESSES, "0"), container("main", CORE, "150")),
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withMps")
    void withIsolationByMps(String name, Pod pod, String refusal) {
        assertThat(MPS.refusal("team-a/train", pod)).isEqualTo(Optional.ofNullable(refusal));
    }

    @Test
    void withoutIsolationOnlyTheAnnotationIsChecked() {
        // 1 % among 2 processes: nothing divides the share.
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(PROCESSES, "2"), container("main", CORE, "1"))))
                .isEmpty();
        // compute only, and 1 GiB: nothing holds the memory, nor keeps a reserve
        assertThat(ShareAdmission.NONE.refusal("team-a/train", pod(Map.of(), container("main", CORE, "30"))))
                .isEmpty();
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(), container("main", CORE, "30", MEM, "1024"))))
                .isEmpty();
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(PROCESSES, "-1"), container("main", CORE, "1"))))
                .contains(BAD_PROCESSES.formatted("-1"));
    }

    @Test
    void aMigProfileNoCardModelHasIsRefusedNamingTheModelsProfilesAndAKnownOneIsAdmitted() {
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(), container("main", "nvidia.com/mig-5g.50gb", "1"))))
                .hasValueSatisfying(why -> assertThat(why)
                        .startsWith(
                                "pod team-a/train, container main asks nvidia.com/mig-5g.50gb: no card model has MIG"
                                        + " profile 5g.50gb; the models and their profiles are ")
                        .contains("NVIDIA H100 80GB HBM3")
                        .contains("3g.40gb"));
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(), container("main", "nvidia.com/mig-3g.40gb", "1"))))
                .isEmpty();
        assertThat(ShareAdmission.NONE.refusal(
                        "team-a/train", pod(Map.of(), container("main", "nvidia.com/mig-1c.3g.40gb", "1"))))
                .as("a compute instance of a known GPU instance profile")
                .isEmpty();
    }

    @Test
    void memoryIsReadInTheAgentsUnits() {
        ShareAdmission blocksOf16 =
                new ShareAdmission(Isolation.MPS, new PodAsks.Units(16, 1024, GPU, MEM, CORE, COUNT));
        Pod pod = pod(Map.of(PROCESSES, "16"), container("main", MEM, "1025"));

        // 1025 blocks of 16 MiB / 16 = 1025 MiB each, 1 after the reserve.
        assertThat(blocksOf16.refusal("team-a/train", pod)).isEmpty();
        // In MiB: 1025 / 16 = 64 MiB each.
        assertThat(MPS.refusal("team-a/train", pod))
                .contains(CANNOT_HOLD.formatted("main") + "a share of 1025 MiB on card 0 gives each of its 16"
                        + " processes 64 MiB," + RESERVE + "ask for at least 16400 MiB or lower"
                        + " elasticgpu.io/gpu-processes to 1");
    }

    @Test
    void theContextReserveIsTheAgentsOwn() {
        Pod oneGib = pod(Map.of(), container("main", CORE, "30", MEM, "1024"));
        Pod fourGibAmongFour = pod(Map.of(PROCESSES, "4"), container("main", CORE, "30", MEM, "4096"));
        ShareAdmission noReserve = new ShareAdmission(Isolation.MPS, 0, PodAsks.Units.DEFAULT);
        ShareAdmission reserveOf512 = new ShareAdmission(Isolation.MPS, 512, PodAsks.Units.DEFAULT);

        // 1024 MiB for 1 process: all of it the context's by default; held whole with no reserve.
        assertThat(MPS.refusal("team-a/train", oneGib)).isPresent();
        assertThat(noReserve.refusal("team-a/train", oneGib)).isEmpty();
        // 4096 / 4 = 1024 MiB each: 512 left with a reserve of 512.
        assertThat(MPS.refusal("team-a/train", fourGibAmongFour)).isPresent();
        assertThat(reserveOf512.refusal("team-a/train", fourGibAmongFour)).isEmpty();
        // Every share needs memory, whatever the reserve.
        assertThat(noReserve.refusal("team-a/train", pod(Map.of(), container("main", CORE, "30"))))
                .hasValueSatisfying(m -> assertThat(m).contains("add elasticgpu.io/gpu-memory"));
        assertThat(MPS.contextReserveMib()).isEqualTo(1024);
        assertThatThrownBy(() -> new ShareAdmission(Isolation.MPS, 16385, PodAsks.Units.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--mps-context-reserve-mib must be 0..16384, was 16385");
    }

    private static final String TFLOPS = "elasticgpu.io/gpu-tflops";
    private static final String PRECISION = "elasticgpu.io/tflops-precision";

    /**
     * 1 bf16 TFLOPS is at most 1 % of a card: of an L4 (121, the lowest bf16 peak in the table: ceil(0.83)); among 48
     * processes that is less than 1 % each on every model. The least that does on the L4: 57 TFLOPS, ceil(47.1) = 48 %.
     */
    @Test
    void withMpsTflopsThatCannotBeDividedOnAnyModelAreRefusedWithTheTflopsThatWould() {
        Pod pod = pod(Map.of(PROCESSES, "48"), container("main", TFLOPS, "1", MEM, "49200"));
        assertThat(MPS.refusal("team-a/train", pod))
                .contains(CANNOT_HOLD.formatted("main") + "1 TFLOPS of bf16 are at most 1 % of a card (of NVIDIA L4,"
                        + " whose bf16 peak 121 is the lowest of the models that give it), which cannot be divided"
                        + " among 48 processes (MPS limits each process to whole percent); ask at least 57 TFLOPS or"
                        + " lower elasticgpu.io/gpu-processes");
        assertThat(MPS.refusal(
                        "team-a/train", pod(Map.of(PROCESSES, "48"), container("main", TFLOPS, "57", MEM, "49200"))))
                .isEmpty();
        // without MPS, nothing divides the share
        assertThat(ShareAdmission.NONE.refusal("team-a/train", pod)).isEmpty();
        assertThat(ShareAdmission.NONE.warnings("team-a/train", pod)).isEmpty();
    }

    /**
     * 10 bf16 TFLOPS among 4 processes: 9 % of an L4 (2 each), 8 % of an A10, 4 % of an A100 (1 each) can be divided;
     * 3 % of an L40S (362.05) and 2 % of the H100s and H200s cannot. Admitted, with a warning naming those, largest
     * share first and, among equal shares, lowest peak first.
     */
    @Test
    void withMpsTflopsThatCanBeDividedOnSomeModelsOnlyAreAdmittedWithAWarningNamingTheOthers() {
        Pod pod = pod(Map.of(PROCESSES, "4"), container("main", TFLOPS, "10", MEM, "8192"));
        assertThat(MPS.refusal("team-a/train", pod)).isEmpty();
        assertThat(MPS.warnings("team-a/train", pod))
                .containsExactly("pod team-a/train: container main asks 10 TFLOPS of bf16, too small a share of NVIDIA"
                        + " L40S (3 %), NVIDIA H100 PCIe (2 %), NVIDIA H100 NVL (2 %), NVIDIA H200 NVL (2 %), NVIDIA"
                        + " H100 80GB HBM3 (2 %), NVIDIA H200 (2 %) for CUDA MPS to divide among 4 processes; placed"
                        + " on such a card, the node agent refuses it: ask more TFLOPS or lower"
                        + " elasticgpu.io/gpu-processes to run on any model");
        // one process: every share of a whole percent can be held
        assertThat(MPS.warnings("team-a/train", pod(Map.of(), container("main", TFLOPS, "10", MEM, "4096"))))
                .isEmpty();
    }

    /** The pod's precision counts: 1 fp32 TFLOPS is 13 % of a T4 (8.1, the lowest fp32 peak), 1 % each of 8. */
    @Test
    void withMpsTheTflopsAreReadInThePodsPrecision() {
        Pod fp32 = pod(Map.of(PROCESSES, "8", PRECISION, "fp32"), container("main", TFLOPS, "1", MEM, "16384"));
        assertThat(MPS.refusal("team-a/train", fp32)).isEmpty();
        Pod bf16 = pod(Map.of(PROCESSES, "8"), container("main", TFLOPS, "1", MEM, "16384"));
        assertThat(MPS.refusal("team-a/train", bf16))
                .hasValueSatisfying(
                        m -> assertThat(m).contains("1 TFLOPS of bf16 are at most 1 % of a card (of NVIDIA L4"));
    }

    /** Memory is checked as for any share; asks the extender refuses (a precision no model has) are its to name. */
    @Test
    void withMpsATflopsAsksMemoryIsCheckedAsAnyAndAnAskNoModelTakesIsLeftToTheExtender() {
        assertThat(MPS.refusal("team-a/train", pod(Map.of(PROCESSES, "4"), container("main", TFLOPS, "100", MEM, "3"))))
                .contains(CANNOT_HOLD.formatted("main") + "a share of 3 MiB on card 0 gives each of its 4 processes"
                        + " 0 MiB," + RESERVE + "ask for at least 4100 MiB");
        assertThat(MPS.refusal(
                        "team-a/train",
                        pod(Map.of(PROCESSES, "48", PRECISION, "fp8"), container("main", TFLOPS, "1", MEM, "49200"))))
                .isEmpty();
        assertThat(MPS.refusal(
                        "team-a/train", pod(Map.of(PROCESSES, "48"), container("main", TFLOPS, "5000", MEM, "49200"))))
                .isEmpty();
    }

    @Test
    void oneShareIsBuiltPerCardWithTheAsksComputeAndMemory() {
        assertThat(ShareAdmission.shares(
                        GpuAsk.slice("main", GpuAsk.Role.APP, 2, 250, 8192, GpuAsk.Family.ELASTIC_GPU)))
                .containsExactly(new Share(0, "", 250, 8192), new Share(1, "", 250, 8192));
        assertThat(ShareAdmission.shares(
                        GpuAsk.slice("main", GpuAsk.Role.APP, Integer.MAX_VALUE, 250, 0, GpuAsk.Family.ELASTIC_GPU)))
                .hasSize(ShareAdmission.MAX_CARDS);
    }

    @Test
    void theIsolationFlagTakesTheAgentsTwoNames() {
        assertThat(Isolation.of("none", "--isolation")).isEqualTo(Isolation.NONE);
        assertThat(Isolation.of("MPS", "--isolation")).isEqualTo(Isolation.MPS);
        assertThatThrownBy(() -> Isolation.of("hami", "--isolation"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--isolation must be none or mps, was hami");
    }

    static Pod pod(Map<String, String> annotations, Container... containers) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("train")
                .withNamespace("team-a")
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withContainers(containers)
                .endSpec()
                .build();
    }

    /** A container whose limits are {@code name, value, name, value …}. */
    static Container container(String name, String... limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        for (int i = 0; i < limits.length; i += 2) {
            q.put(limits[i], new Quantity(limits[i + 1]));
        }
        ContainerBuilder c = new ContainerBuilder().withName(name).withImage("trainer:1");
        return q.isEmpty()
                ? c.build()
                : c.withNewResources().withLimits(q).endResources().build();
    }
}
