package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's MPS daemons against the stand-in control program (src/test/resources/mps): the same command line,
 * pid file and commands as NVIDIA's nvidia-cuda-mps-control, each command recorded by the daemon that received it.
 */
class MpsDaemonsTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    /** 20 GiB and 30 % for one process. */
    private static final MpsShare SHARE = new MpsShare(
            "dp-0123456789abcdef",
            List.of(CARD),
            new MpsLimits(List.of(20480L), 30, 1),
            "team-a/train/main",
            "elasticgpu.io/gpu-memory " + CARD + "::m0",
            0);

    @TempDir
    Path dir;

    private Path root;
    private MpsControl control;
    private final List<String> restarts = new ArrayList<>();

    @BeforeEach
    void install() {
        root = dir.resolve("mps");
        control = new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
    }

    @AfterEach
    void endDaemons() {
        MpsStandIn.killAll(root);
    }

    private MpsDaemons open() {
        return MpsDaemons.open(
                control, root, InstantSource.system(), (share, why) -> restarts.add(share.key() + ": " + why));
    }

    @Test
    void aShareGetsADaemonOfItsOwnWithItsLimitsSetOnTheDaemonsSide() {
        MpsDirs dirs = open().ensure(SHARE);

        assertThat(dirs.share()).isEqualTo(root.resolve("dp-0123456789abcdef"));
        // The limits are the daemon's defaults from its first instant (its environment) and by command, and read back.
        assertThat(MpsStandIn.environment(dirs))
                .contains(
                        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30",
                        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M",
                        "CUDA_VISIBLE_DEVICES=" + CARD,
                        "CUDA_MPS_PIPE_DIRECTORY=" + dirs.pipe(),
                        "CUDA_MPS_LOG_DIRECTORY=" + dirs.log());
        assertThat(MpsStandIn.commands(dirs))
                .containsExactly(
                        "set_default_active_thread_percentage 30",
                        "set_default_device_pinned_mem_limit 0 20480M",
                        "get_default_active_thread_percentage");
    }

    @Test
    void theDaemonsSharedMemoryIsTheSharesOwnDirectoryNotTheHosts() {
        MpsDirs dirs = open().ensure(SHARE);

        Path marker = MpsStandIn.shmMarker(dirs);
        assertThat(marker).exists().startsWith(dirs.shm());
        assertThat(Path.of("/dev/shm").resolve(marker.getFileName())).doesNotExist();
    }

    @Test
    void askingAgainForTheSameShareStartsNoSecondDaemon() {
        MpsDaemons daemons = open();
        MpsDirs first = daemons.ensure(SHARE);
        long pid = MpsControl.pid(first.pipe());

        MpsDirs again = daemons.ensure(SHARE);

        assertThat(again).isEqualTo(first);
        assertThat(MpsControl.pid(again.pipe())).isEqualTo(pid);
        assertThat(MpsStandIn.commands(first)).hasSize(3);
    }

    @Test
    void aKilledDaemonIsStartedAgainWithTheSameLimits() {
        MpsDaemons daemons = open();
        MpsDirs dirs = daemons.ensure(SHARE);
        long pid = MpsControl.pid(dirs.pipe());
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        MpsDaemons.Daemon before = daemons.daemon(SHARE.key()).orElseThrow();
        org.awaitility.Awaitility.await().until(() -> !daemons.alive(before));

        assertThat(daemons.check()).containsExactly(SHARE.key());

        long again = MpsControl.pid(dirs.pipe());
        assertThat(again).isPositive().isNotEqualTo(pid);
        assertThat(daemons.alive(daemons.daemon(SHARE.key()).orElseThrow())).isTrue();
        assertThat(daemons.daemon(SHARE.key()).orElseThrow().pid()).isEqualTo(again);
        assertThat(MpsStandIn.commands(dirs))
                .containsExactly(
                        "set_default_active_thread_percentage 30",
                        "set_default_device_pinned_mem_limit 0 20480M",
                        "get_default_active_thread_percentage",
                        "set_default_active_thread_percentage 30",
                        "set_default_device_pinned_mem_limit 0 20480M",
                        "get_default_active_thread_percentage");
        assertThat(restarts).containsExactly(SHARE.key() + ": its control daemon (pid %d) is gone".formatted(pid));
        assertThat(daemons.check()).isEmpty();
    }

    @Test
    void aRestartedAgentAdoptsTheRunningDaemonAndStartsNoSecond() {
        MpsDirs dirs = open().ensure(SHARE);
        long pid = MpsControl.pid(dirs.pipe());

        MpsDaemons next = open(); // the agent restarted: the daemon kept running
        assertThat(next.daemons()).singleElement().satisfies(d -> {
            assertThat(d.share()).isEqualTo(SHARE);
            assertThat(d.pid()).isEqualTo(pid);
        });
        next.ensure(SHARE);
        assertThat(next.check()).isEmpty();

        assertThat(MpsControl.pid(dirs.pipe())).isEqualTo(pid);
        assertThat(MpsStandIn.commands(dirs)).hasSize(3);
    }

    @Test
    void noDaemonOutlivesItsShare() {
        MpsDaemons daemons = open();
        MpsDirs dirs = daemons.ensure(SHARE);
        long pid = MpsControl.pid(dirs.pipe());

        assertThat(daemons.retain(d -> false)).containsExactly(SHARE.key());

        org.awaitility.Awaitility.await()
                .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertThat(dirs.share()).doesNotExist();
        assertThat(daemons.daemons()).isEmpty();
    }

    @Test
    void aHeldShareKeepsItsDaemon() {
        MpsDaemons daemons = open();
        MpsDirs dirs = daemons.ensure(SHARE);

        assertThat(daemons.retain(d -> d.share().key().equals(SHARE.key()))).isEmpty();

        assertThat(daemons.alive(daemons.daemon(SHARE.key()).orElseThrow())).isTrue();
    }

    @Test
    void limitsChangeWhileNoProcessRunsAndNeverUnderARunningOne() {
        MpsDaemons daemons = open();
        MpsDirs dirs = daemons.ensure(SHARE);
        MpsShare other = new MpsShare(
                SHARE.key(), SHARE.cards(), new MpsLimits(List.of(40960L), 60, 1), SHARE.holder(), SHARE.held(), 0);

        daemons.ensure(other);
        assertThat(MpsStandIn.commands(dirs))
                .endsWith(
                        "set_default_active_thread_percentage 60",
                        "set_default_device_pinned_mem_limit 0 40960M",
                        "get_default_active_thread_percentage");

        MpsStandIn.serve(dirs, 4242, 4243);
        assertThatThrownBy(() -> daemons.ensure(SHARE))
                .isInstanceOf(MpsException.class)
                .hasMessage("MPS share dp-0123456789abcdef (team-a/train/main) runs processes under"
                        + " MpsLimits[memoryMib=[40960], threadPercent=60, processes=1]; it cannot take other limits"
                        + " MpsLimits[memoryMib=[20480], threadPercent=30, processes=1]");
    }

    @Test
    void aMissingControlProgramIsAClearErrorNamingTheFlag() {
        Path missing = dir.resolve("no/nvidia-cuda-mps-control");

        assertThatThrownBy(() -> MpsControl.check(missing, "--mps-control"))
                .hasMessage(
                        "--mps-control %s: no executable file there; isolation by MPS needs NVIDIA's "
                                + "nvidia-cuda-mps-control"
                                + " on the node (it ships with the driver, e.g. /usr/bin/nvidia-cuda-mps-control); "
                                + "pass its path"
                                + " with --mps-control, or run without isolation",
                        missing);
    }

    @Test
    void aDaemonThatNeverComesUpFailsWithinTheTimeoutSayingWhereItsLogIs() throws Exception {
        Path silent = dir.resolve("silent/nvidia-cuda-mps-control");
        Files.createDirectories(silent.getParent());
        Files.writeString(silent, "#!/bin/sh\nexit 0\n");
        silent.toFile().setExecutable(true);
        MpsDaemons daemons = MpsDaemons.open(
                new MpsControl(silent, false, "", Duration.ofMillis(500)),
                root,
                InstantSource.system(),
                MpsDaemons.Listener.NONE);

        MpsDirs dirs = new MpsDirs(root.resolve(SHARE.key()));
        assertThatThrownBy(() -> daemons.ensure(SHARE))
                .isInstanceOf(MpsException.class)
                .hasMessage(
                        "the MPS control daemon for %s wrote no nvidia-cuda-mps-control.pid within 500 ms; see its "
                                + "log in %s",
                        dirs.pipe(), dirs.log());
    }

    @Test
    void theDaemonIsMovedIntoACgroupOfItsOwnUnderEveryHierarchy() throws Exception {
        Path cgroups = dir.resolve("cgroup"); // a v1 layout: one hierarchy per controller, each with cgroup.procs
        for (String h : List.of("memory", "pids")) {
            Files.createDirectories(cgroups.resolve(h));
            Files.writeString(cgroups.resolve(h).resolve("cgroup.procs"), "");
        }
        MpsControl moving = new MpsControl(control.program(), false, cgroups.toString(), Duration.ofSeconds(10));
        MpsDirs dirs = MpsDaemons.open(moving, root, InstantSource.system(), MpsDaemons.Listener.NONE)
                .ensure(SHARE);

        assertThat(MpsControl.pid(dirs.pipe())).isPositive();
        for (String h : List.of("memory", "pids")) {
            // The launch shell writes its own pid, then execs the control program, whose daemon (like NVIDIA's, a
            // child it forks) is born in that cgroup. A real cgroupfs moves the process; these files only record it.
            assertThat(Files.readString(cgroups.resolve(h).resolve("elasticgpu-mps/cgroup.procs"))
                            .strip())
                    .matches("\\d+");
        }
    }
}
