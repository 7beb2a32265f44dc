package io.elasticgpu.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The NVML binding against the C stub of src/test/c/nvml_stub.c, through the same dlopen and downcalls as on a node. */
class NvmlBackendTest {

    private static final String A100 = "NVIDIA A100-SXM4-80GB";
    /**
     * Two HGX-style islands of four cards, each card with 12 links to its island's NVSwitch; islands on two sockets. */
    private static final String EIGHT_CARDS = """
            driver 570.86.15
            card GPU-5c1e7e5a-0000-4000-8000-000000000000 00000000:07:00.0 2 0 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000001 00000000:0F:00.0 3 0 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000002 00000000:47:00.0 0 0 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000003 00000000:4E:00.0 1 0 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000004 00000000:87:00.0 6 1 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000005 00000000:90:00.0 7 1 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000006 00000000:B7:00.0 4 1 0 81920 NVIDIA A100-SXM4-80GB
            card GPU-5c1e7e5a-0000-4000-8000-000000000007 00000000:BD:00.0 5 1 1 81920 NVIDIA A100-SXM4-80GB
            # within an island PCIe says one switch or one host bridge, which NVLink outranks; across, SYSTEM
            topo 0 1 10
            topo 2 3 10
            topo 0 2 30
            topo 4 5 10
            nvswitch 0 0 12
            nvswitch 1 0 12
            nvswitch 2 0 12
            nvswitch 3 0 12
            nvswitch 4 1 12
            nvswitch 5 1 12
            nvswitch 6 1 12
            nvswitch 7 1 12
            """;

    @TempDir
    Path dir;

    @Test
    void discoversEveryCardAndTwoNvLinkIslandsOfFour() {
        NvmlStub.configure(EIGHT_CARDS);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            Hardware hardware = nvml.discover();

            assertThat(hardware.driverVersion()).isEqualTo("570.86.15");
            assertThat(hardware.gpus())
                    .containsExactly(
                            new Gpu(
                                    0,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000000",
                                    A100,
                                    81920,
                                    "00000000:07:00.0",
                                    2,
                                    0,
                                    false),
                            new Gpu(
                                    1,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000001",
                                    A100,
                                    81920,
                                    "00000000:0F:00.0",
                                    3,
                                    0,
                                    false),
                            new Gpu(
                                    2,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000002",
                                    A100,
                                    81920,
                                    "00000000:47:00.0",
                                    0,
                                    0,
                                    false),
                            new Gpu(
                                    3,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000003",
                                    A100,
                                    81920,
                                    "00000000:4E:00.0",
                                    1,
                                    0,
                                    false),
                            new Gpu(
                                    4,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000004",
                                    A100,
                                    81920,
                                    "00000000:87:00.0",
                                    6,
                                    1,
                                    false),
                            new Gpu(
                                    5,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000005",
                                    A100,
                                    81920,
                                    "00000000:90:00.0",
                                    7,
                                    1,
                                    false),
                            new Gpu(
                                    6,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000006",
                                    A100,
                                    81920,
                                    "00000000:B7:00.0",
                                    4,
                                    1,
                                    false),
                            new Gpu(
                                    7,
                                    "GPU-5c1e7e5a-0000-4000-8000-000000000007",
                                    A100,
                                    81920,
                                    "00000000:BD:00.0",
                                    5,
                                    1,
                                    true));
            Topology.Builder expected = Topology.builder(8);
            for (int a = 0; a < 8; a++) {
                for (int b = a + 1; b < 8; b++) {
                    // same island (a / 4 == b / 4): min(12, 12) switch links = NV12; else SYSTEM
                    expected.link(a, b, a / 4 == b / 4 ? Link.nvlink(12) : Link.of(LinkKind.CROSS_SOCKET));
                }
            }
            assertThat(hardware.topology()).isEqualTo(expected.build());
        }
    }

    @Test
    void directNvLinksCountTheActiveLanesWhoseFarEndIsTheOtherCard() {
        // card 0 has 12 links to card 1, link 3 down: 11 lanes; card 2 has none and meets both through PCIe
        NvmlStub.configure(cards(3) + "nvlink 0 1 12\ndown 0 3\ntopo 0 2 10\ntopo 1 2 40\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            Topology topology = nvml.discover().topology();

            assertThat(topology.between(0, 1)).isEqualTo(Link.nvlink(11));
            assertThat(topology.between(0, 2)).isEqualTo(Link.of(LinkKind.PCIE_SWITCH));
            assertThat(topology.between(1, 2)).isEqualTo(Link.of(LinkKind.NUMA_NODE));
        }
    }

    @ParameterizedTest(name = "level {0} is {1}")
    @CsvSource({
        "0,  PCIE_SWITCH", // INTERNAL: two GPUs on one board
        "10, PCIE_SWITCH", // SINGLE
        "20, PCIE_SWITCH", // MULTIPLE
        "30, HOST_BRIDGE", // HOSTBRIDGE
        "40, NUMA_NODE", // NODE
        "50, CROSS_SOCKET", // SYSTEM
    })
    void theCommonAncestorLevelGivesThePcieLink(int level, LinkKind kind) {
        NvmlStub.configure(cards(2) + "topo 0 1 " + level + "\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.discover().topology().between(0, 1)).isEqualTo(Link.of(kind));
        }
    }

    @Test
    void whatADriverCannotSayBecomesUnknownNotAnError() {
        // card 0 has no NUMA information (NOT_SUPPORTED), card 1's driver lacks the function; no MIG, hidden topology
        NvmlStub.configure("""
                card GPU-a 00000000:01:00.0 0 -1 0 1024 NVIDIA T4
                card GPU-b 00000000:02:00.0 1 1 0 1024 NVIDIA T4
                fail nvmlDeviceGetNumaNodeId 1 13
                fail nvmlDeviceGetMigMode -1 3
                fail nvmlDeviceGetTopologyCommonAncestor -1 3
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            Hardware hardware = nvml.discover();

            assertThat(hardware.gpus()).extracting(Gpu::numaNode).containsExactly(-1, -1);
            assertThat(hardware.gpus()).extracting(Gpu::migEnabled).containsExactly(false, false);
            assertThat(hardware.topology().between(0, 1)).isEqualTo(Link.UNKNOWN);
        }
    }

    @Test
    void aMissingLibrarySaysWhereItWasLookedForAndWhatToDo() {
        String advice = "; on a GPU node install the NVIDIA driver or mount it into the agent (the NVIDIA container"
                + " toolkit does this), or run with --backend simulated";
        assertThatThrownBy(() -> NvmlBackend.open(dir.resolve("libnvidia-ml.so.1")))
                .isInstanceOf(DiscoveryException.class)
                .hasMessage("NVML (libnvidia-ml.so.1) not found in " + dir.resolve("libnvidia-ml.so.1") + advice);
        assertThatThrownBy(() -> Nvml.load(List.of(dir.resolve("a"), dir.resolve("b")), false))
                .hasMessage(
                        "NVML (libnvidia-ml.so.1) not found in " + dir.resolve("a") + ", " + dir.resolve("b") + advice);
    }

    @Test
    void aFailedCallNamesTheFunctionTheCodeAndNvmlsText() {
        NvmlStub.configure(cards(2) + "fail nvmlDeviceGetMemoryInfo 1 15\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThatThrownBy(nvml::discover)
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage("nvmlDeviceGetMemoryInfo for card 1 returned NVML_ERROR_GPU_IS_LOST (15) \"GPU is "
                            + "lost\"; the card has"
                            + " fallen off the bus: drain the node, then reset the card (nvidia-smi -r) or "
                            + "reboot");
        }
        NvmlStub.configure(cards(1) + "fail nvmlInit_v2 -1 9\n");
        assertThatThrownBy(() -> NvmlBackend.open(NvmlStub.library()))
                .hasMessage("nvmlInit_v2 returned NVML_ERROR_DRIVER_NOT_LOADED (9) \"Driver Not Loaded\"; the NVIDIA "
                        + "kernel module"
                        + " is not loaded: check lsmod | grep nvidia and dmesg");
        assertThat(NvmlStub.initCount()).isZero();
    }

    @Test
    void xidAndDoubleBitEccEventsArriveForTheirCard() {
        NvmlStub.configure(EIGHT_CARDS);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            List<GpuEvent> seen = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
                while (seen.size() < 2) { // the second event may come with the first or on the next wait
                    seen.addAll(uninterrupted(() -> nvml.awaitEvents(Duration.ofSeconds(1))));
                }
            });
            NvmlStub.emit(2, NvmlEvents.XID, 79);
            NvmlStub.emit(5, NvmlEvents.DOUBLE_BIT_ECC, 0);

            await().atMost(Duration.ofSeconds(10)).until(waiter::isDone);
            assertThat(seen).containsExactly(new GpuEvent.Xid(2, 79), new GpuEvent.DoubleBitEcc(5));
        }
    }

    @Test
    void cardsThatCannotReportAnEventTypeAreWatchedForTheOthersOrSkipped() throws InterruptedException {
        // card 1 has no ECC (Xid only), card 2 reports nothing; events it did not register are not delivered
        NvmlStub.configure(cards(3) + "events 1 0x8\nevents 2 0\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.awaitEvents(Duration.ZERO)).isEmpty();
            NvmlStub.emit(1, NvmlEvents.DOUBLE_BIT_ECC, 0);
            NvmlStub.emit(2, NvmlEvents.XID, 79);
            NvmlStub.emit(1, NvmlEvents.XID, 13);

            assertThat(nvml.awaitEvents(Duration.ofSeconds(10))).containsExactly(new GpuEvent.Xid(1, 13));
        }
    }

    @Test
    void aLostCardIsXid79AndALostUnknownCardFailsTheWait() throws InterruptedException {
        NvmlStub.configure(cards(4));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            NvmlStub.emitError(3, NvmlError.GPU_IS_LOST);
            assertThat(nvml.awaitEvents(Duration.ofSeconds(10))).containsExactly(new GpuEvent.Xid(3, 79));

            NvmlStub.emitError(-1, NvmlError.GPU_IS_LOST);
            assertThatThrownBy(() -> nvml.awaitEvents(Duration.ofSeconds(10)))
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage("nvmlEventSetWait_v2 returned NVML_ERROR_GPU_IS_LOST (15) \"GPU is lost\"; the card has"
                            + " fallen off the bus: drain the node, then reset the card (nvidia-smi -r) or reboot");
        }
    }

    @Test
    void waitingWithoutEventsTimesOutEmpty() throws InterruptedException {
        NvmlStub.configure(cards(2));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.awaitEvents(Duration.ofMillis(50))).isEmpty();
        }
    }

    @Test
    void aCardWhoseMemoryQueryFailsDoesNotAnswer() {
        NvmlStub.configure(cards(2) + "fail nvmlDeviceGetMemoryInfo 1 15\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.answers(0)).isTrue();
            assertThat(nvml.answers(1)).isFalse();
            assertThat(nvml.answers(2)).isFalse(); // no such card: INVALID_ARGUMENT
        }
    }

    @Test
    void closeFreesTheEventSetAndShutsNvmlDown() throws InterruptedException {
        NvmlStub.configure(cards(2));
        NvmlBackend nvml = NvmlBackend.open(NvmlStub.library());
        assertThat(NvmlStub.initCount()).isEqualTo(1);
        nvml.awaitEvents(Duration.ZERO);
        assertThat(NvmlStub.eventSets()).isEqualTo(1);

        nvml.close();
        nvml.close();

        assertThat(NvmlStub.eventSets()).isZero();
        assertThat(NvmlStub.initCount()).isZero();
        assertThat(nvml.answers(0)).isFalse();
        assertThatThrownBy(nvml::discover)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the nvml backend is closed");
        assertThatThrownBy(() -> nvml.processes(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the nvml backend is closed");
    }

    @Test
    void theLayoutsHaveTheSizesOfTheCStructs() {
        // nvml_stub.c asserts the same sizes of its copies of the nvml.h structs at compile time
        assertThat(NvmlLayouts.PCI_INFO.byteSize()).isEqualTo(68);
        assertThat(NvmlLayouts.PCI_BUS_ID).isEqualTo(36);
        assertThat(NvmlLayouts.EVENT_DATA.byteSize()).isEqualTo(32);
        assertThat(NvmlLayouts.MEMORY.byteSize()).isEqualTo(24);
        assertThat(NvmlLayouts.PROCESS_INFO.byteSize()).isEqualTo(24);
        assertThat(NvmlLayouts.PROCESS_USED_MEMORY).isEqualTo(8);
        assertThat(NvmlLayouts.PROCESS_UTILIZATION_SAMPLE.byteSize()).isEqualTo(32);
        assertThat(NvmlLayouts.SAMPLE_TIMESTAMP).isEqualTo(8);
        assertThat(NvmlLayouts.SAMPLE_SM).isEqualTo(16);
        assertThat(NvmlLayouts.SAMPLE_MEMORY).isEqualTo(20);
    }

    @Test
    void processesAreListedByPidWithTheMemoryTheyHold() {
        NvmlStub.configure(cards(3) + """
                process 0 4242 1536
                process 0 311 20480
                process 1 5000 7
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0)).containsExactly(new GpuProcess(311, 0, 20480), new GpuProcess(4242, 0, 1536));
            assertThat(nvml.processes(1)).containsExactly(new GpuProcess(5000, 1, 7));
            assertThat(nvml.processes(2)).isEmpty();
        }
    }

    @Test
    void anMpsClientInBothListsAppearsOnce() {
        // the MPS server is a compute process only; its clients are in both lists, one is only in the MPS list
        NvmlStub.configure(cards(1) + """
                process 0 900 320 compute
                process 0 1001 4096 both
                process 0 1002 2048 both
                process 0 1003 1024 mps
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0))
                    .containsExactly(
                            new GpuProcess(900, 0, 320),
                            new GpuProcess(1001, 0, 4096),
                            new GpuProcess(1002, 0, 2048),
                            new GpuProcess(1003, 0, 1024));
        }
    }

    @Test
    void memoryNvmlCannotReportIsMinusOneUnlessTheOtherListHasIt() {
        NvmlStub.configure(cards(1) + """
                process 0 10 na
                process 0 20 na compute
                process 0 20 300 mps
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0)).containsExactly(new GpuProcess(10, 0, -1), new GpuProcess(20, 0, 300));
        }
    }

    @Test
    void memoryIsRoundedUpToWholeMib() {
        assertThat(NvmlBackend.mib(0)).isEqualTo(0);
        assertThat(NvmlBackend.mib(1)).isEqualTo(1);
        assertThat(NvmlBackend.mib(1L << 20)).isEqualTo(1);
        assertThat(NvmlBackend.mib((1L << 20) + 1)).isEqualTo(2);
        assertThat(NvmlBackend.mib(-1)).isEqualTo(-1); // NVML_VALUE_NOT_AVAILABLE, ULLONG_MAX read as a long
    }

    @Test
    void aListLongerThanTheFirstBufferIsReadWhole() {
        // 70 processes: more than Nvml.FIRST_PROCESS_ROOM, so the first call answers INSUFFICIENT_SIZE
        NvmlStub.configure(cards(1)
                + IntStream.range(0, 70)
                        .mapToObj(i -> "process 0 %d %d\n".formatted(2000 + i, 100 + i))
                        .reduce("", String::concat));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0))
                    .containsExactlyElementsOf(IntStream.range(0, 70)
                            .mapToObj(i -> new GpuProcess(2000 + i, 0, 100 + i))
                            .toList());
        }
    }

    @Test
    void processesStartingBetweenTheCallsAreListedToo() {
        // 70 at the first call, which says INSUFFICIENT_SIZE; 20 more start before the second
        NvmlStub.configure(cards(1) + "spawn 0 20\n"
                + IntStream.range(0, 70)
                        .mapToObj(i -> "process 0 %d 100\n".formatted(2000 + i))
                        .reduce("", String::concat));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            List<GpuProcess> processes = nvml.processes(0);

            assertThat(processes).hasSize(90);
            assertThat(processes.subList(70, 90))
                    .containsExactlyElementsOf(IntStream.range(70, 90)
                            .mapToObj(i -> new GpuProcess(100000 + i, 0, 1))
                            .toList());
        }
    }

    @Test
    void aListThatStillWantsMoreRoomAfterFourCallsIsAnError() {
        // INSUFFICIENT_SIZE every time, leaving the count as it was: the list never fits
        NvmlStub.configure(cards(1) + "fail nvmlDeviceGetComputeRunningProcesses_v3 0 7\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThatThrownBy(() -> nvml.processes(0))
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage("nvmlDeviceGetComputeRunningProcesses_v3 for card 0 asked for more room 4 times in a "
                            + "row, last for"
                            + " 526 entries; the list grows faster than it can be read: ask again");
        }
    }

    @Test
    void aCardThatCannotListProcessesHasNone() {
        NvmlStub.configure(cards(2) + """
                process 0 10 100 both
                process 1 11 100 both
                fail nvmlDeviceGetComputeRunningProcesses_v3 0 3
                fail nvmlDeviceGetMPSComputeRunningProcesses_v3 0 3
                fail nvmlDeviceGetMPSComputeRunningProcesses_v3 1 3
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0)).isEmpty();
            assertThat(nvml.processes(1)).containsExactly(new GpuProcess(11, 1, 100)); // from the compute list
        }
    }

    @Test
    void utilizationKeepsTheNewestSampleOfEachProcessNewerThanTheTimestamp() {
        NvmlStub.configure(cards(2) + """
                util 0 20 35 10 1500
                util 0 10 50 20 1000
                util 0 10 60 25 3000
                util 0 10 55 22 2000
                util 0 30 5 1 900
                util 1 10 99 99 5000
                """);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.utilization(0, 1000))
                    .containsExactly(
                            new ProcessUtilization(10, 0, 60, 25, 3000), new ProcessUtilization(20, 0, 35, 10, 1500));
            assertThat(nvml.utilization(0, 0))
                    .containsExactly(
                            new ProcessUtilization(10, 0, 60, 25, 3000),
                            new ProcessUtilization(20, 0, 35, 10, 1500),
                            new ProcessUtilization(30, 0, 5, 1, 900));
            assertThat(nvml.utilization(1, 0)).containsExactly(new ProcessUtilization(10, 1, 99, 99, 5000));
        }
    }

    @Test
    void noSamplesOrACardThatCannotSampleGiveNoUtilization() {
        // NOT_FOUND: nothing since the timestamp (card 0) or at all (card 1); NOT_SUPPORTED, as with MIG (card 2)
        NvmlStub.configure(cards(3) + "util 0 10 50 20 1000\nutil 2 10 50 20 1000\n"
                + "fail nvmlDeviceGetProcessUtilization 2 3\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.utilization(0, 1000)).isEmpty();
            assertThat(nvml.utilization(1, 0)).isEmpty();
            assertThat(nvml.utilization(2, 0)).isEmpty();
            assertThatThrownBy(() -> nvml.utilization(0, -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sinceMicros is -1; pass 0 for every sample NVML keeps, or the timestampMicros of a"
                            + " sample it returned");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ComputeMode.class)
    void theComputeModeOfTheCardIsRead(ComputeMode mode) {
        NvmlStub.configure(cards(2) + "computemode 1 " + mode.ordinal() + "\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.computeMode(0)).isEqualTo(ComputeMode.DEFAULT);
            assertThat(nvml.computeMode(1)).isEqualTo(mode);
        }
    }

    @Test
    void aComputeModeNvmlHDoesNotKnowIsAnErrorNamingIt() {
        NvmlStub.configure(cards(1) + "computemode 0 4\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThatThrownBy(() -> nvml.computeMode(0))
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage(
                            "nvmlDeviceGetComputeMode for card 0 returned compute mode 4, which is none of nvml.h's "
                                    + "0 DEFAULT,"
                                    + " 1 EXCLUSIVE_THREAD, 2 PROHIBITED, 3 EXCLUSIVE_PROCESS; the driver is newer "
                                    + "than this"
                                    + " agent: update Elastic GPU, or set a known mode with nvidia-smi -i 0 -c "
                                    + "DEFAULT");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        "nvmlDeviceGetProcessUtilization",
        "nvmlDeviceGetComputeMode",
    })
    void aFailedUsageQueryNamesTheFunctionAndTheCard(String function) {
        NvmlStub.configure(cards(2) + "process 1 10 100 both\nutil 1 10 50 20 1000\nfail " + function + " 1 999\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0)).isEmpty(); // card 0 answers
            assertThatThrownBy(() -> {
                        switch (function) {
                            case "nvmlDeviceGetProcessUtilization" -> nvml.utilization(1, 0);
                            case "nvmlDeviceGetComputeMode" -> nvml.computeMode(1);
                            default -> nvml.processes(1);
                        }
                    })
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage(function + " for card 1 returned NVML_ERROR_UNKNOWN (999) \"Unknown Error\"");
        }
    }

    @Test
    void aCardThatIsNotThereIsAnError() {
        NvmlStub.configure(cards(1));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThatThrownBy(() -> nvml.processes(1))
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage("nvmlDeviceGetHandleByIndex_v2 for card 1 returned NVML_ERROR_INVALID_ARGUMENT (2)"
                            + " \"Invalid Argument\"");
        }
    }

    @Test
    void anOlderDriverIsAskedThroughTheV2Lists() {
        String node = cards(2) + """
                process 0 900 320
                process 0 1001 4096 both
                process 1 77 na
                fail nvmlDeviceGetMPSComputeRunningProcesses_v2 1 999
                """;
        NvmlStub.configure(NvmlStub.Build.WITHOUT_V3_PROCESS_LISTS, node);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library(NvmlStub.Build.WITHOUT_V3_PROCESS_LISTS))) {
            assertThat(nvml.processes(0)).containsExactly(new GpuProcess(900, 0, 320), new GpuProcess(1001, 0, 4096));
            assertThatThrownBy(() -> nvml.processes(1))
                    .hasMessage("nvmlDeviceGetMPSComputeRunningProcesses_v2 for"
                            + " card 1 returned NVML_ERROR_UNKNOWN (999) \"Unknown Error\"");
        }
    }

    @Test
    void aDriverWithoutProcessListsListsNone() {
        NvmlStub.configure(NvmlStub.Build.WITHOUT_PROCESS_LISTS, cards(1) + "process 0 900 320\ncomputemode 0 3\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library(NvmlStub.Build.WITHOUT_PROCESS_LISTS))) {
            assertThat(nvml.processes(0)).isEmpty();
            assertThat(nvml.computeMode(0)).isEqualTo(ComputeMode.EXCLUSIVE_PROCESS);
        }
    }

    @Test
    void processesThatStartAndEndWhileNvmlIsOpenAreSeenAtTheNextCall() {
        NvmlStub.configure(cards(1) + "process 0 10 100\n");
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(nvml.processes(0)).containsExactly(new GpuProcess(10, 0, 100));

            NvmlStub.update("process 0 11 200\nutil 0 11 40 10 7000\ncomputemode 0 3\n");

            assertThat(nvml.processes(0)).containsExactly(new GpuProcess(11, 0, 200));
            assertThat(nvml.utilization(0, 0)).containsExactly(new ProcessUtilization(11, 0, 40, 10, 7000));
            assertThat(nvml.computeMode(0)).isEqualTo(ComputeMode.EXCLUSIVE_PROCESS);
            assertThatThrownBy(() -> NvmlStub.update("card GPU-x 00000000:09:00.0 9 0 0 1024 NVIDIA T4\n"))
                    .hasMessage("nvml stub: line 1 of the configuration is not understood: card GPU-x"
                            + " 00000000:09:00.0 9 0 0 1024 NVIDIA T4");
        }
    }

    /** {@code n} T4s on buses 01.., minor = index, NUMA 0, no MIG. */
    private static String cards(int n) {
        StringBuilder config = new StringBuilder();
        for (int i = 0; i < n; i++) {
            config.append("card GPU-t4-%d 00000000:%02X:00.0 %d 0 0 15360 NVIDIA T4\n".formatted(i, i + 1, i));
        }
        return config.toString();
    }

    private interface Wait {
        List<GpuEvent> call() throws InterruptedException;
    }

    private static List<GpuEvent> uninterrupted(Wait wait) {
        try {
            return wait.call();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
