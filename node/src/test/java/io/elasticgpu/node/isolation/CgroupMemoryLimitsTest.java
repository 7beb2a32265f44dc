package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each container's memory held by its cgroup through the stand-in nvidia-smi (src/test/resources/nvidia-smi: NVIDIA's
 * {@code nvidia-smi memory-limits}, writing the card's line into the cgroup's {@code dmem.max}), with a fake /proc and
 * cgroup tree.
 */
class CgroupMemoryLimitsTest {

    private static final String CARD0 = "GPU-00000000-1111-2222-3333-444444444444";
    private static final String CARD1 = "GPU-11111111-1111-2222-3333-444444444444";
    private static final Hardware HARDWARE = new Hardware(
            "615.71.09",
            List.of(
                    new Gpu(0, CARD0, "NVIDIA H100", 81559, "00000000:1B:00.0", 0, 0, false),
                    new Gpu(1, CARD1, "NVIDIA H100", 81559, "0000:43:00.0", 1, 0, false)),
            Topology.uniform(2, Link.UNKNOWN));
    private static final long PID = 4242;
    private static final String CONTAINER =
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_0000_0000_0000_000000000000.slice/"
                    + "cri-containerd-" + "ab".repeat(32) + ".scope";

    @TempDir
    Path dir;

    private Path smi;
    private Path cgroupfs;
    private Path proc;
    private Path leaf;
    private CgroupMemoryLimits limits;

    @BeforeEach
    void install() throws IOException {
        smi = MpsV3StandIn.installNvidiaSmi(
                dir.resolve("smi"), Map.of(CARD0, "00000000:1B:00.0", CARD1, "0000:43:00.0"));
        cgroupfs = dir.resolve("cgroup");
        proc = dir.resolve("proc");
        Files.createDirectories(proc.resolve(Long.toString(PID)));
        Files.writeString(
                proc.resolve(Long.toString(PID)).resolve("cgroup"),
                "5:devices:/kubepods/other\n0::" + CONTAINER + "\n");
        leaf = cgroupfs.resolve(CONTAINER.substring(1));
        Files.createDirectories(leaf);
        Files.writeString(leaf.resolve("dmem.max"), "");
        Files.writeString(leaf.resolve("dmem.min"), "");
        limits = new CgroupMemoryLimits(smi, cgroupfs, proc, false, Duration.ofSeconds(10), HARDWARE);
    }

    @Test
    void theBackendIsDmemOnlyWhenTheRootCgroupListsAnNvidiaRegion() throws IOException {
        assertThat(CgroupMemoryLimits.backend(cgroupfs)).isEmpty();
        Files.writeString(cgroupfs.resolve("dmem.capacity"), "drm/0000:03:00.0/vram0 8573157376\n");
        assertThat(CgroupMemoryLimits.backend(cgroupfs)).isEmpty();

        Files.writeString(
                cgroupfs.resolve("dmem.capacity"),
                "drm/0000:03:00.0/vram0 8573157376\nnvidia/00000000:1b:00.0/vidmem 85899345920\n");

        assertThat(CgroupMemoryLimits.backend(cgroupfs)).contains("dmem");
        assertThat(limits.backend()).contains("dmem");
    }

    @Test
    void aLimitIsSetByNvidiaSmiWithSoftZeroOnTheProcesssOwnCgroupAndOnlyOnce() throws IOException {
        Path held = limits.hold(PID, CARD0, 21504);

        assertThat(held).isEqualTo(leaf);
        assertThat(MpsV3StandIn.smiCalls(smi))
                .containsExactly("memory-limits -i %s -n %s --soft-limit 0 --hard-limit 21504".formatted(CARD0, leaf));
        assertThat(Files.readAllLines(leaf.resolve("dmem.max")))
                .containsExactly("nvidia/00000000:1b:00.0/vidmem " + 21504L * 1024 * 1024);
        assertThat(Files.readAllLines(leaf.resolve("dmem.min"))).containsExactly("nvidia/00000000:1b:00.0/vidmem 0");
        assertThat(limits.limitMib(leaf, CARD0)).contains(21504L);

        assertThat(limits.hold(leaf, CARD0, 21504)).isFalse();
        assertThat(MpsV3StandIn.smiCalls(smi)).hasSize(1);
    }

    @Test
    void eachCardHasItsOwnLineAndAChangedLimitIsSetAgain() throws IOException {
        limits.hold(PID, CARD0, 4096);
        limits.hold(PID, CARD1, 8192);
        assertThat(limits.hold(leaf, CARD0, 2048)).isTrue();

        // NVML's legacy 4-digit domain is the driver's 8-digit one, lower-case
        assertThat(Files.readAllLines(leaf.resolve("dmem.max")))
                .containsExactlyInAnyOrder(
                        "nvidia/00000000:1b:00.0/vidmem " + 2048L * 1024 * 1024,
                        "nvidia/00000000:43:00.0/vidmem " + 8192L * 1024 * 1024);
        assertThat(limits.limitMib(leaf, CARD1)).contains(8192L);
        assertThat(limits.regionOf(CARD1)).isEqualTo("nvidia/00000000:43:00.0/vidmem");
    }

    @Test
    void noLimitReadsAsEmptyAndAGoneCgroupAsAnError() throws IOException {
        assertThat(limits.limitMib(leaf, CARD0)).isEmpty();
        Files.writeString(leaf.resolve("dmem.max"), "nvidia/00000000:1b:00.0/vidmem max\n");
        assertThat(limits.limitMib(leaf, CARD0)).isEmpty();

        assertThatThrownBy(() -> limits.limitMib(cgroupfs.resolve("gone"), CARD0))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("dmem.max");
    }

    @Test
    void aProcessWithNoCgroupOfItsOwnIsRefused() throws IOException {
        Path root = proc.resolve("7");
        Files.createDirectories(root);
        Files.writeString(root.resolve("cgroup"), "0::/\n");
        Path outside = proc.resolve("8");
        Files.createDirectories(outside);
        Files.writeString(outside.resolve("cgroup"), "0::/../../kubepods.slice/x.scope\n");

        assertThat(limits.cgroup(7)).isEmpty();
        assertThat(limits.cgroup(8)).isEmpty();
        assertThat(limits.cgroup(9)).isEmpty();
        assertThatThrownBy(() -> limits.hold(8, CARD0, 1024))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("--mps-host-namespaces");
        assertThat(MpsV3StandIn.smiCalls(smi)).isEmpty();
    }

    @Test
    void aCgroupWithoutDmemFilesIsNotSupportedAndTheMessageSaysWhatTheNodeNeeds() throws IOException {
        Path plain = cgroupfs.resolve("system.slice");
        Files.createDirectories(plain);

        assertThatThrownBy(() -> limits.hold(plain, CARD0, 1024))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("Not Supported")
                .hasMessageContaining("dmem cgroup controller");
        assertThat(plain.resolve("dmem.max")).doesNotExist();
    }

    @Test
    void theNvidiaSmiStandInRefusesAUnitSuffixAsNvidiasDoes() throws Exception {
        Result r = smi("memory-limits", "-i", CARD0, "-n", leaf.toString(), "--soft-limit", "0", "--hard-limit", "40G");

        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("--hard-limit must be a non-negative MebiByte value");
        assertThat(Files.readString(leaf.resolve("dmem.max"))).isEmpty();

        Result noDmem = smi("memory-limits", "--get", "-i", CARD0, "-n", cgroupfs.toString());
        assertThat(noDmem.exit()).isNotZero();
        assertThat(noDmem.output()).contains("Unable to get memory limit: Not Supported");

        Result first = smi("-i", "0", "memory-limits", "--get");
        assertThat(first.output()).contains("Option memory-limits is not recognized");
    }

    @Test
    void withTheHostsNamespacesEveryReadAndRunGoesThroughThem() throws Exception {
        Path enter = dir.resolve("enter");
        Files.writeString(enter, "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/entered.log\"\nexec \"$@\"\n");
        enter.toFile().setExecutable(true);
        CgroupMemoryLimits host = new CgroupMemoryLimits(
                smi, cgroupfs, proc, List.of(enter.toString()), Duration.ofSeconds(10), HARDWARE);
        Files.writeString(cgroupfs.resolve("dmem.capacity"), "nvidia/00000000:1b:00.0/vidmem 85899345920\n");

        assertThat(host.hold(PID, CARD0, 1024)).isEqualTo(leaf);
        assertThat(host.backend()).contains("dmem");

        assertThat(Files.readAllLines(dir.resolve("entered.log")))
                .containsExactly(
                        "cat " + proc.resolve("4242").resolve("cgroup"),
                        "cat " + leaf.resolve("dmem.max"),
                        "%s memory-limits -i %s -n %s --soft-limit 0 --hard-limit 1024".formatted(smi, CARD0, leaf),
                        "cat " + cgroupfs.resolve("dmem.capacity"));
        assertThat(host.limitMib(leaf, CARD0)).contains(1024L);
    }

    @Test
    void aCardNotOnTheNodeHasNoRegion() {
        assertThatThrownBy(() -> limits.regionOf("GPU-99999999-0000-0000-0000-000000000000"))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("not on this node");
        assertThat(CgroupMemoryLimits.region("0000:C1:00.0")).isEqualTo("nvidia/00000000:c1:00.0/vidmem");
    }

    private record Result(int exit, String output) {}

    private Result smi(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(smi.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }
}
