package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.NvmlStub;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Isolation by MPS as the agent starts it: which layout a node runs (what {@code --mps-layout auto} finds, and a layout
 * the node cannot run refused at start, naming the flag and the driver), what each card's compute mode allows, and a
 * round that finds a limit changed from outside the agent and tells the share's holder. Against the NVML stub and the
 * stand-in control programs: the legacy one alone is a driver before MPS v3; with the v3 one beside it, a newer one.
 */
class MpsIsolationTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    private static final String CARD_LINE =
            "driver 580.159.04\ncard " + CARD + " 00000000:01:00.0 0 0 0 81559 NVIDIA H100 80GB HBM3\n";

    @TempDir
    Path dir;

    private Path root;
    private final List<MpsIsolation> started = new ArrayList<>();
    private final List<NvmlBackend> opened = new ArrayList<>();
    private final List<String> told = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        root = dir.resolve("mps");
    }

    @AfterEach
    void end() {
        started.forEach(MpsIsolation::close);
        opened.forEach(NvmlBackend::close);
        MpsStandIn.killAll(root);
        MpsV3StandIn.killAll(root);
    }

    private MpsIsolation start(Path program, IsolationConfig.Layout layout, String nvml) {
        NvmlStub.configure(nvml);
        NvmlBackend gpus = NvmlBackend.open(NvmlStub.library());
        opened.add(gpus);
        IsolationConfig config = IsolationConfig.mps(program, root)
                .withLayout(layout)
                .withTiming(Duration.ofHours(1), Duration.ofSeconds(10)); // rounds only when the test asks
        MpsIsolation m = MpsIsolation.start(
                config,
                gpus.discover(),
                gpus,
                InstantSource.system(),
                (share, reason, message) -> told.add(share.holder() + " " + reason + ": " + message));
        started.add(m);
        return m;
    }

    private Path legacy() {
        return MpsStandIn.install(dir.resolve("legacy")).program();
    }

    @Test
    void autoRunsOneDaemonPerShareWhereTheDriverHasNoMpsV3AndSaysWhy() {
        MpsIsolation m = start(legacy(), IsolationConfig.Layout.AUTO, CARD_LINE);

        assertThat(m.status().layout()).isEqualTo(IsolationConfig.Layout.PER_SHARE);
        assertThat(m.status().why()).startsWith("auto: no MPS v3 (").endsWith("; driver 580.159.04)");
        assertThat(m.status().memory()).isEqualTo("mps");
        assertThat(m.status().bypass()).isEqualTo("agent");
    }

    @Test
    void autoRunsMpsV3WhereTheControlProgramOffersIt() {
        MpsIsolation m =
                start(MpsV3StandIn.install(dir.resolve("v3")).program(), IsolationConfig.Layout.AUTO, CARD_LINE);

        assertThat(m.status().layout()).isEqualTo(IsolationConfig.Layout.V3);
        assertThat(m.status().why()).startsWith("auto: the control program offers MPS v3");
    }

    @Test
    void askingForV3WhereTheDriverLacksItStopsTheAgentNamingTheFlagAndTheDriver() {
        Path program = legacy();

        assertThatThrownBy(() -> start(program, IsolationConfig.Layout.V3, CARD_LINE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--mps-layout v3 needs MPS v3 (NVIDIA driver 615 or later, CUDA 13.4), and"
                        + " this node's driver is 580.159.04: ")
                .hasMessageEndingWith("use --mps-layout per-share (or auto, which picks per-share here)");
    }

    @Test
    void oneDaemonPerShareNeedsComputeModeDefaultAndSaysHowToSetIt() {
        Path program = legacy();

        assertThatThrownBy(() -> start(program, IsolationConfig.Layout.PER_SHARE, CARD_LINE + "computemode 0 3\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("card 0 (" + CARD + ") is in compute mode EXCLUSIVE_PROCESS")
                .hasMessageContaining("nvidia-smi -i 0 -c DEFAULT, or use --mps-layout per-card or v3");
    }

    @Test
    void onePerCardServerInComputeModeExclusiveProcessLeavesTheDriverToRefuseAnyOtherProcess() {
        MpsIsolation m = start(legacy(), IsolationConfig.Layout.PER_CARD, CARD_LINE + "computemode 0 3\n");

        assertThat(m.status().layout()).isEqualTo(IsolationConfig.Layout.PER_CARD);
        assertThat(m.status().bypass()).isEqualTo("driver");
        assertThat(m.status().memory()).isEqualTo("environment");
    }

    @Test
    void aRoundPutsBackALimitChangedFromOutsideAndTellsTheSharesHolder() {
        MpsIsolation m = start(legacy(), IsolationConfig.Layout.PER_SHARE, CARD_LINE);
        MpsAccess access = m.share(
                        "dp-00000000000000c1",
                        "team-a/train/main",
                        "held",
                        List.of(new Share(0, CARD, 300, 20480)),
                        1,
                        false)
                .orElseThrow();
        MpsDirs dirs = new MpsDirs(root.resolve("dp-00000000000000c1"));
        assertThat(access.mounts()).containsEntry(dirs.pipe().toString(), "/tmp/nvidia-mps");
        MpsControl control =
                new MpsControl(dir.resolve("legacy/nvidia-cuda-mps-control"), false, "", Duration.ofSeconds(10));
        control.send(dirs.pipe(), "set_default_device_pinned_mem_limit 0 81559M"); // a pod's own command

        m.round();

        assertThat(told)
                .containsExactly("team-a/train/main GpuShareLimitRestored: an MPS limit was changed from outside the"
                        + " agent: device_pinned_mem_limit 0 (the daemon's default) was \"81559M\", set again to"
                        + " 19456M");
        assertThat(control.send(dirs.pipe(), "get_default_device_pinned_mem_limit 0"))
                .isEqualTo("19456M");
    }

    @Test
    void aWholeCardIsNeverHeldThroughMps() {
        MpsIsolation m = start(legacy(), IsolationConfig.Layout.PER_SHARE, CARD_LINE);

        assertThat(m.share("dp-00000000000000c2", "ns/p/c", "held", List.of(new Share(0, CARD, 1000, 81559)), 1, false))
                .isEmpty();
        assertThat(m.servers().daemons()).isZero();
    }
}
