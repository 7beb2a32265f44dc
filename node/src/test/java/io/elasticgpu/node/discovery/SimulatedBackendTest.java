package io.elasticgpu.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SimulatedBackendTest {

    private static final String NODE = """
            driverVersion: "570.86.15"
            cards:
              - model: NVIDIA A100-SXM4-80GB
                memoryMiB: 81920
                numa: 0
                count: 4
              - {model: NVIDIA L4, memoryMiB: 23034, uuid: GPU-0d9a6c4e-3f1b-4c2a-9e57-6b1d2f8a4c31}
            links:
              - {cards: [0, 1, 2, 3], kind: NVLINK, nvlinks: 12}
              - {cards: [0, 4], kind: PCIE_SWITCH}
            """;

    @TempDir
    Path dir;

    @Test
    void readsCardsWithCountAndLinks() throws IOException {
        try (SimulatedBackend simulated = SimulatedBackend.load(write(NODE), "node-a")) {
            Hardware hardware = simulated.discover();

            assertThat(simulated.name()).isEqualTo("simulated");
            assertThat(hardware.driverVersion()).isEqualTo("570.86.15");
            assertThat(hardware.gpus())
                    .extracting(Gpu::model)
                    .containsExactly(
                            "NVIDIA A100-SXM4-80GB",
                            "NVIDIA A100-SXM4-80GB",
                            "NVIDIA A100-SXM4-80GB",
                            "NVIDIA A100-SXM4-80GB",
                            "NVIDIA L4");
            assertThat(hardware.gpus())
                    .extracting(Gpu::memoryMib)
                    .containsExactly(81920L, 81920L, 81920L, 81920L, 23034L);
            assertThat(hardware.gpus()).extracting(Gpu::numaNode).containsExactly(0, 0, 0, 0, -1);
            assertThat(hardware.gpus())
                    .extracting(Gpu::pciBusId)
                    .containsExactly(
                            "00000000:00:00.0",
                            "00000000:01:00.0",
                            "00000000:02:00.0",
                            "00000000:03:00.0",
                            "00000000:04:00.0");
            assertThat(hardware.gpus()).extracting(Gpu::minor).containsExactly(0, 1, 2, 3, 4);
            assertThat(hardware.gpus().get(4).uuid()).isEqualTo("GPU-0d9a6c4e-3f1b-4c2a-9e57-6b1d2f8a4c31");
            Topology.Builder expected = Topology.builder(5);
            for (int a = 0; a < 4; a++) {
                for (int b = a + 1; b < 4; b++) {
                    expected.link(a, b, Link.nvlink(12));
                }
            }
            expected.link(0, 4, Link.of(LinkKind.PCIE_SWITCH)); // the other pairs with card 4 stay UNKNOWN
            assertThat(hardware.topology()).isEqualTo(expected.build());
        }
    }

    @Test
    void defaultUuidsComeFromTheSeedAndTheIndex() throws IOException {
        Path file = write("cards: [{model: NVIDIA T4, memoryMiB: 15360, count: 2}]\n");
        List<String> a = uuids(SimulatedBackend.load(file, "node-a"));

        assertThat(a)
                .doesNotHaveDuplicates()
                .allMatch(u -> u.matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
        assertThat(uuids(SimulatedBackend.load(file, "node-a"))).isEqualTo(a);
        assertThat(uuids(SimulatedBackend.load(file, "node-b"))).doesNotContainAnyElementsOf(a);
        assertThat(SimulatedBackend.load(file).discover().driverVersion()).isEqualTo("simulated");
    }

    static Stream<Arguments> badInput() {
        return Stream.of(
                Arguments.of(
                        "a misspelt key",
                        "cards: [{model: NVIDIA T4, memory: 15360}]",
                        "unknown key \"memory\" in cards[0]; the keys there are count, memoryMiB, model, numa, uuid"),
                Arguments.of(
                        "memory with a unit",
                        "cards: [{model: NVIDIA T4, memoryMiB: 16GB}]",
                        "cards[0].memoryMiB must be a whole number >= 1, was \"16GB\"; it is the card's memory in MiB;"
                                + " write e.g. memoryMiB: 81920"),
                Arguments.of(
                        "no memory",
                        "cards: [{model: NVIDIA T4}]",
                        "cards[0].memoryMiB is missing; it is the card's memory in MiB; write e.g. memoryMiB: 81920"),
                Arguments.of(
                        "no cards",
                        "driverVersion: '1'\n",
                        "cards is missing or empty; list at least one card, e.g. cards: [{model: NVIDIA A100-SXM4-80GB,"
                                + " memoryMiB: 81920}]"),
                Arguments.of(
                        "zero cards of a kind",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 0}]",
                        "cards[0].count must be a whole number >= 1, was 0; it is how many such cards; leave it out"
                                + " for one"),
                Arguments.of(
                        "a uuid for many cards",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 2, uuid: GPU-1}]",
                        "cards[0] has a uuid and count 2, but cards cannot share a uuid; drop uuid or list the cards"
                                + " one by one"),
                Arguments.of(
                        "an unknown link kind",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 2}]\nlinks: [{cards: [0, 1], kind: NVSWITCH}]",
                        "links[0].kind must be one of NVLINK, PCIE_SWITCH, HOST_BRIDGE, NUMA_NODE, CROSS_SOCKET, was"
                                + " \"NVSWITCH\""),
                Arguments.of(
                        "NVLink without lanes",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 2}]\nlinks: [{cards: [0, 1], kind: NVLINK}]",
                        "links[0] is NVLINK and needs nvlinks >= 1, the lanes between each pair; write e.g. "
                                + "nvlinks: 12"),
                Arguments.of(
                        "nvidia-smi's name for a kind",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 2}]\nlinks: [{cards: [0, 2], kind: NODE}]",
                        "links[0].kind must be one of NVLINK, PCIE_SWITCH, HOST_BRIDGE, NUMA_NODE, CROSS_SOCKET, was"
                                + " \"NODE\""),
                Arguments.of(
                        "a card index past the end",
                        "cards: [{model: NVIDIA T4, memoryMiB: 1, count: 2}]\nlinks: [{cards: [0, 2], kind: "
                                + "NUMA_NODE}]",
                        "links[0].cards names card 2, but the node has 2 cards (0..1)"),
                Arguments.of(
                        "usage as a word",
                        "usage: yes please\ncards: [{model: NVIDIA T4, memoryMiB: 1}]",
                        "usage must be true or false, was \"yes please\"; write usage: true to simulate processes"
                                + " with \"process <card> <pid> <MiB> [<SM %>]\" lines in the events file"),
                Arguments.of("not YAML", "cards: [", "not valid YAML: "));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void badInputSaysWhatToWriteInstead(String name, String yaml, String message) throws IOException {
        Path file = write(yaml);
        if (name.equals("not YAML")) { // the parser's own words follow
            assertThatThrownBy(() -> SimulatedBackend.load(file)).hasMessageStartingWith(file + ": " + message);
        } else {
            assertThatThrownBy(() -> SimulatedBackend.load(file))
                    .isInstanceOf(DiscoveryException.class)
                    .hasMessage(file + ": " + message);
        }
    }

    @Test
    void aMissingFileSaysWhatToWriteThere() {
        Path file = dir.resolve("absent.yaml");
        assertThatThrownBy(() -> SimulatedBackend.load(file))
                .hasMessage(file + ": no such file; write the simulated"
                        + " node there, e.g. cards: [{model: NVIDIA A100-SXM4-80GB, memoryMiB: 81920}]");
    }

    @Test
    void injectedEventsAndSilenceReachTheWaiter() throws InterruptedException {
        try (SimulatedBackend simulated = SimulatedBackend.of(twoCards())) {
            simulated.inject(new GpuEvent.Xid(1, 79));
            simulated.inject(new GpuEvent.DoubleBitEcc(0));
            simulated.setAnswers(1, false);

            assertThat(simulated.awaitEvents(Duration.ofSeconds(10)))
                    .containsExactly(new GpuEvent.Xid(1, 79), new GpuEvent.DoubleBitEcc(0));
            assertThat(simulated.answers(0)).isTrue();
            assertThat(simulated.answers(1)).isFalse();
            assertThat(simulated.awaitEvents(Duration.ofMillis(20))).isEmpty();
            assertThatThrownBy(() -> simulated.inject(new GpuEvent.Xid(2, 79)))
                    .hasMessage("the simulated node has 2 cards (0..1), no card 2");
        }
    }

    @Test
    void linesAppendedToTheEventsFileArriveAsTheyAreWritten() throws IOException {
        Path yaml = write("cards: [{model: NVIDIA T4, memoryMiB: 15360, count: 2}]\n");
        Path events = dir.resolve("node.yaml.events");
        Files.writeString(events, "xid 0 13\n"); // history when the agent starts: not replayed
        try (SimulatedBackend simulated = SimulatedBackend.load(yaml)) {
            List<GpuEvent> seen = new CopyOnWriteArrayList<>();
            CompletableFuture.runAsync(() -> {
                while (seen.size() < 3) {
                    try {
                        seen.addAll(simulated.awaitEvents(Duration.ofSeconds(1)));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });

            append(events, "xid 0 79\nbogus 1\nxid 7 79\n# a comment\ndown 1\necc 1\nxid 1 ");
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
            assertThat(simulated.answers(1)).isFalse();

            append(events, "48\nup 1\n"); // completes the unfinished line
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
            assertThat(seen)
                    .containsExactly(new GpuEvent.Xid(0, 79), new GpuEvent.DoubleBitEcc(1), new GpuEvent.Xid(1, 48));
            await().atMost(Duration.ofSeconds(10)).until(() -> simulated.answers(1));
        }
    }

    @Test
    void waitingWithoutEventsTimesOutEmpty() throws IOException, InterruptedException {
        try (SimulatedBackend simulated = SimulatedBackend.load(write("cards: [{model: NVIDIA T4, memoryMiB: 1}]"))) {
            assertThat(simulated.awaitEvents(Duration.ofMillis(50))).isEmpty();
        }
    }

    @Test
    void aSimulatedCardHasNoProcessesNoSamplesAndTheDefaultComputeMode() throws IOException {
        // the node file describes hardware only; what runs on it is the GpuBackend defaults
        try (SimulatedBackend simulated = SimulatedBackend.load(write(NODE), "node-a")) {
            assertThat(simulated.processes(0)).isEmpty();
            assertThat(simulated.utilization(0, 0)).isEmpty();
            assertThat(simulated.computeMode(4)).isEqualTo(ComputeMode.DEFAULT);
        }
    }

    @Test
    void withUsageProcessesComeFromTheEventsFileAndOnlyThoseWithAnSmShareHaveSamples() throws Exception {
        Path yaml = write("usage: true\ncards: [{model: NVIDIA T4, memoryMiB: 15360, count: 2}]\n");
        Path events = Files.writeString(dir.resolve("node.yaml.events"), "");
        try (SimulatedBackend simulated = SimulatedBackend.load(yaml)) {
            assertThat(simulated.measuresUsage()).isTrue();
            append(events, "process 1 4242 2048 35\nprocess 1 17 300\nprocess 0 4242 64 5\nprocess 9 1 1\n");
            simulated.awaitEvents(Duration.ofMillis(300)); // reads the file, as the agent's health watch does

            assertThat(simulated.processes(1))
                    .containsExactly(new GpuProcess(17, 1, 300), new GpuProcess(4242, 1, 2048));
            List<ProcessUtilization> samples = simulated.utilization(1, 0);
            assertThat(samples).extracting(ProcessUtilization::pid).containsExactly(4242);
            assertThat(samples.getFirst().smPercent()).isEqualTo(35);
            assertThat(simulated.utilization(1, samples.getFirst().timestampMicros()))
                    .as("each call is a newer sample")
                    .hasSize(1);

            append(events, "exit 4242\n");
            simulated.awaitEvents(Duration.ofMillis(300));
            assertThat(simulated.processes(1)).containsExactly(new GpuProcess(17, 1, 300));
            assertThat(simulated.processes(0)).isEmpty();

            simulated.setAnswers(1, false);
            assertThatThrownBy(() -> simulated.processes(1)).isInstanceOf(DiscoveryException.class);
        }
        try (SimulatedBackend plain = SimulatedBackend.load(write(NODE))) {
            assertThat(plain.measuresUsage())
                    .as("usage is off unless the file says so")
                    .isFalse();
        }
    }

    private Path write(String yaml) throws IOException {
        return Files.writeString(dir.resolve("node.yaml"), yaml);
    }

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardOpenOption.APPEND);
    }

    private static List<String> uuids(SimulatedBackend simulated) {
        try (simulated) {
            return simulated.discover().gpus().stream().map(Gpu::uuid).toList();
        }
    }

    private static Hardware twoCards() {
        return new Hardware(
                "simulated",
                List.of(
                        new Gpu(0, "GPU-a", "NVIDIA T4", 15360, "00000000:00:00.0", 0, -1, false),
                        new Gpu(1, "GPU-b", "NVIDIA T4", 15360, "00000000:01:00.0", 1, -1, false)),
                Topology.uniform(2, Link.UNKNOWN));
    }
}
