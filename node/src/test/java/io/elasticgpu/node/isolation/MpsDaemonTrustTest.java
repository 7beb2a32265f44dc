package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing the agent trusts about a daemon lives where a container can write: a share's containers have its pipe
 * directory, where the daemon writes its pid file, so a pod can put any pid there. Which process is the daemon is found
 * by what a container cannot forge and recorded beside the share, outside every mount; a planted pid is never adopted,
 * and so never killed when the share ends.
 */
class MpsDaemonTrustTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
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
    private final List<Process> others = new ArrayList<>();

    @BeforeEach
    void install() {
        root = dir.resolve("mps");
        control = new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
    }

    @AfterEach
    void end() {
        others.forEach(Process::destroyForcibly);
        MpsStandIn.killAll(root);
    }

    private MpsDaemons open() {
        return MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE);
    }

    /** A process whose command line names the control program, as a pod's process can name itself. */
    private long lookalike() throws IOException {
        Process p = new ProcessBuilder("bash", "-c", "exec -a nvidia-cuda-mps-control-lookalike sleep 600").start();
        others.add(p);
        Awaitility.await()
                .until(() -> Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"))
                        .contains("nvidia-cuda-mps-control"));
        return p.pid();
    }

    @Test
    void theDaemonIsRecordedWhereNoContainerCanWriteAndThePidFileOnlySaysItStarted() throws IOException {
        MpsDirs dirs = open().ensure(SHARE);

        var recorded = new com.fasterxml.jackson.databind.ObjectMapper()
                .readValue(dirs.daemonRecord().toFile(), DaemonProcess.class);
        assertThat(dirs.daemonRecord().getParent()).isEqualTo(dirs.share()).isNotEqualTo(dirs.pipe());
        assertThat(recorded.pid()).isEqualTo(MpsControl.pid(dirs.pipe()));
        assertThat(control.alive(recorded)).isTrue();
    }

    @Test
    void aPidPlantedInThePipeDirectoryIsNeitherAdoptedNorKilledWhenTheShareEnds() throws IOException {
        MpsDirs dirs = open().ensure(SHARE);
        long daemon = MpsControl.pid(dirs.pipe());
        long victim = lookalike();
        Files.writeString(dirs.pipe().resolve(MpsControl.PID_FILE), victim + "\n"); // what a pod can do

        MpsDaemons next = open(); // the agent restarted
        assertThat(next.daemons())
                .singleElement()
                .satisfies(d -> assertThat(d.pid()).isEqualTo(daemon));
        next.retain(d -> false);

        Awaitility.await()
                .until(() -> ProcessHandle.of(daemon).map(h -> !h.isAlive()).orElse(true));
        assertThat(ProcessHandle.of(victim))
                .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
    }

    @Test
    void withoutItsRecordTheDaemonIsFoundByTheEnvironmentItWasStartedWithNotByItsPidFile() throws IOException {
        MpsDirs dirs = open().ensure(SHARE);
        long daemon = MpsControl.pid(dirs.pipe());
        Files.delete(dirs.daemonRecord()); // e.g. written by an agent before this one
        Files.writeString(dirs.pipe().resolve(MpsControl.PID_FILE), lookalike() + "\n");

        assertThat(open().daemons())
                .singleElement()
                .satisfies(d -> assertThat(d.pid()).isEqualTo(daemon));
    }

    @Test
    void aPidReusedByAnotherProcessIsNotTheDaemon() throws IOException {
        long other = lookalike();
        DaemonProcess seen = DaemonProcess.of(Path.of("/proc"), other).orElseThrow();

        assertThat(seen.alive(Path.of("/proc"), "nvidia-cuda-mps-control")).isTrue();
        assertThat(new DaemonProcess(other, seen.startTicks() - 1).alive(Path.of("/proc"), "nvidia-cuda-mps-control"))
                .as("the same pid, started at another time: another process")
                .isFalse();
    }

    @Test
    void aDaemonKilledWhileAPodPlantsAPidComesBackAsTheRealOne() throws IOException {
        MpsDaemons daemons = open();
        MpsDirs dirs = daemons.ensure(SHARE);
        long first = MpsControl.pid(dirs.pipe());
        ProcessHandle.of(first).orElseThrow().destroyForcibly();
        Awaitility.await()
                .until(() -> ProcessHandle.of(first).map(h -> !h.isAlive()).orElse(true));
        long victim = lookalike();
        Files.writeString(dirs.pipe().resolve(MpsControl.PID_FILE), victim + "\n");

        assertThat(daemons.check()).containsExactly(SHARE.key());

        long again = daemons.daemon(SHARE.key()).orElseThrow().pid();
        assertThat(again).isNotEqualTo(victim).isNotEqualTo(first);
        assertThat(Files.readString(Path.of("/proc", Long.toString(again), "environ")))
                .contains("CUDA_MPS_PIPE_DIRECTORY=" + dirs.pipe());
    }
}
