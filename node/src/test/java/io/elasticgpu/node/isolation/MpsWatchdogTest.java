package io.elasticgpu.node.isolation;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.NvmlStub;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process count of an MPS share, enforced against NVML's process lists (the C stub of libnvidia-ml.so.1) and the
 * share's daemon (the stand-in control program), with real processes standing for the share's CUDA clients.
 */
class MpsWatchdogTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    private static final String CARD_LINE = "card " + CARD + " 00000000:01:00.0 0 0 0 81559 NVIDIA H100 80GB HBM3\n";
    /** 40 GiB and 60 % shared by two processes: 20 GiB and 30 % each. */
    private static final MpsShare SHARE = new MpsShare("dp-00000000000000b2", List.of(CARD),
            MpsLimits.of(List.of(new io.elasticgpu.api.v1alpha1.Allocation.Share(0, CARD, 600, 40960)), 2),
            "team-b/infer/main", "elasticgpu.io/gpu-memory " + CARD + "::m0");

    @TempDir
    Path dir;
    private Path root;
    private final List<Process> clients = new ArrayList<>();
    private MpsDaemons daemons;

    @BeforeEach
    void start() {
        root = dir.resolve("mps");
        MpsControl control = new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
        daemons = MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE);
    }

    @AfterEach
    void stop() {
        clients.forEach(Process::destroyForcibly);
        MpsStandIn.killAll(root);
    }

    private long client() throws IOException {
        Process p = new ProcessBuilder("sleep", "600").start();
        clients.add(p);
        return p.pid();
    }

    @Test
    void theYoungestProcessesBeyondTheSharesCountAreEndedByMps() throws IOException {
        MpsDirs dirs = daemons.ensure(SHARE);
        long server = 7001;
        long oldest = client();
        long second = client();
        long third = client();
        MpsStandIn.serve(dirs, server, oldest, second, third);
        NvmlStub.configure(CARD_LINE + "process 0 %d 66 mps\n".formatted(server)
                + "process 0 %d 20000 both\nprocess 0 %d 20000 both\nprocess 0 %d 2000 both\n".formatted(oldest, second, third));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(daemons, nvml, nvml.discover());
            List<MpsWatchdog.Ended> ended = watchdog.enforce();

            assertThat(ended).singleElement().satisfies(e -> {
                assertThat(e.pid()).isEqualTo(third);
                assertThat(e.how()).isEqualTo("terminate_client");
                assertThat(e.share().key()).isEqualTo(SHARE.key());
            });
            assertThat(MpsStandIn.commands(dirs)).contains("get_server_list", "get_client_list 7001",
                    "terminate_client 7001 " + third);
            assertThat(MpsStandIn.clients(dirs, server)).containsExactly(Long.toString(oldest), Long.toString(second));
            assertThat(ProcessHandle.of(oldest)).hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
            assertThat(watchdog.owners()).containsEntry(server, new MpsWatchdog.ShareProcess(SHARE, true))
                    .containsEntry(oldest, new MpsWatchdog.ShareProcess(SHARE, false))
                    .containsEntry(second, new MpsWatchdog.ShareProcess(SHARE, false));
        }
    }

    @Test
    void aShareWithinItsCountIsLeftAloneAndNotAskedAgainUntilNvmlShowsAChange() throws IOException {
        MpsDirs dirs = daemons.ensure(SHARE);
        long one = client();
        long two = client();
        MpsStandIn.serve(dirs, 7002, one, two);
        NvmlStub.configure(CARD_LINE + "process 0 7002 66 mps\nprocess 0 %d 1000 both\nprocess 0 %d 1000 both\n".formatted(one, two));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(daemons, nvml, nvml.discover());
            assertThat(watchdog.enforce()).isEmpty();
            int asked = MpsStandIn.commands(dirs).size();

            assertThat(watchdog.enforce()).isEmpty();

            assertThat(MpsStandIn.commands(dirs)).hasSize(asked); // the same processes on the card: the daemon is not asked
        }
    }

    @Test
    void aCardWithNoProcessesCostsTheDaemonNothing() {
        MpsDirs dirs = daemons.ensure(SHARE);
        NvmlStub.configure(CARD_LINE);

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(new MpsWatchdog(daemons, nvml, nvml.discover()).enforce()).isEmpty();
        }

        assertThat(MpsStandIn.commands(dirs)).doesNotContain("get_server_list");
    }
}
