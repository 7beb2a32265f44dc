package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.NvmlStub;
import java.io.IOException;
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
 * The process count of an MPS share, enforced against NVML's process lists (the C stub of libnvidia-ml.so.1) and the
 * share's daemon (the stand-in control program), with real processes standing for the share's CUDA clients.
 */
class MpsWatchdogTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    private static final String CARD_LINE = "card " + CARD + " 00000000:01:00.0 0 0 0 81559 NVIDIA H100 80GB HBM3\n";
    /** 40 GiB and 60 % shared by two processes: 20 GiB (19 after the context reserve) and 30 % each. */
    private static final MpsShare SHARE = new MpsShare(
            "dp-00000000000000b2",
            List.of(CARD),
            MpsLimits.of(
                    List.of(new io.elasticgpu.api.v1alpha1.PodGrant.Share(0, CARD, 600, 40960)),
                    2,
                    MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB),
            "team-b/infer/main",
            "elasticgpu.io/gpu-memory " + CARD + "::m0",
            0);

    private static final long RESERVE = MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB;

    @TempDir
    Path dir;

    private Path root;
    private final List<Process> clients = new ArrayList<>();
    private MpsDaemons daemons;
    private ShareDaemons servers;

    @BeforeEach
    void start() {
        root = dir.resolve("mps");
        MpsControl control =
                new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
        daemons = MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE);
        servers = new ShareDaemons(daemons);
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
        NvmlStub.configure(CARD_LINE
                + "process 0 %d 66 mps\n".formatted(server)
                + "process 0 %d 20000 both\nprocess 0 %d 20000 both\nprocess 0 %d 2000 both\n"
                        .formatted(oldest, second, third));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(servers, nvml, nvml.discover(), RESERVE);
            List<MpsWatchdog.Ended> ended = watchdog.enforce();

            assertThat(ended).singleElement().satisfies(e -> {
                assertThat(e.pid()).isEqualTo(third);
                assertThat(e.how()).isEqualTo("terminate_client");
                assertThat(e.share().key()).isEqualTo(SHARE.key());
            });
            assertThat(MpsStandIn.commands(dirs))
                    .contains("get_server_list", "get_client_list 7001", "terminate_client 7001 " + third);
            assertThat(MpsStandIn.clients(dirs, server)).containsExactly(Long.toString(oldest), Long.toString(second));
            assertThat(ProcessHandle.of(oldest))
                    .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
            assertThat(watchdog.owners())
                    .containsEntry(server, new MpsWatchdog.ShareProcess(SHARE, true))
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
        NvmlStub.configure(CARD_LINE
                + "process 0 7002 66 mps\nprocess 0 %d 1000 both\nprocess 0 %d 1000 both\n".formatted(one, two));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(servers, nvml, nvml.discover(), RESERVE);
            assertThat(watchdog.enforce()).isEmpty();
            int asked = MpsStandIn.commands(dirs).size();

            assertThat(watchdog.enforce()).isEmpty();

            assertThat(MpsStandIn.commands(dirs))
                    .hasSize(asked); // the same processes on the card: the daemon is not asked
        }
    }

    @Test
    void aPodsProcessOnTheCardOutsideMpsIsEndedTheRoundItIsSeenAndAHostsIsOnlyReported() throws IOException {
        Path proc = dir.resolve("proc");
        daemons.ensure(SHARE);
        long bypassing = client(); // a process of a pod whose CUDA_MPS_PIPE_DIRECTORY led to no daemon
        long host = client();
        podProcess(proc, bypassing);
        Files.createDirectories(proc.resolve(Long.toString(host)));
        Files.writeString(proc.resolve(Long.toString(host)).resolve("cgroup"), "0::/system.slice/some.service\n");
        NvmlStub.configure(
                CARD_LINE + "process 0 %d 30000 compute\nprocess 0 %d 500 compute\n".formatted(bypassing, host));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(servers, nvml, nvml.discover(), proc, RESERVE);
            watchdog.enforce();

            assertThat(watchdog.bypasses())
                    .extracting(MpsWatchdog.Bypass::pid, MpsWatchdog.Bypass::how)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(bypassing, "SIGKILL"),
                            org.assertj.core.groups.Tuple.tuple(host, "not ended (a process of the host)"));
            assertThat(watchdog.bypasses())
                    .filteredOn(b -> b.pid() == bypassing)
                    .singleElement()
                    .satisfies(b -> assertThat(b.owner())
                            .hasValueSatisfying(
                                    o -> assertThat(o.podUid()).isEqualTo("0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b")));
            org.awaitility.Awaitility.await()
                    .until(() ->
                            ProcessHandle.of(bypassing).map(h -> !h.isAlive()).orElse(true));
            assertThat(ProcessHandle.of(host))
                    .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());

            NvmlStub.update("process 0 %d 500 compute\n".formatted(host)); // the killed one is gone
            watchdog.enforce();
            assertThat(watchdog.bypasses())
                    .as("the host's process is reported once")
                    .isEmpty();
        }
    }

    @Test
    void aNewClientOfTheShareIsLearnedTheRoundNvmlShowsItAndNotTakenForABypass() throws IOException {
        Path proc = dir.resolve("proc");
        MpsDirs dirs = daemons.ensure(SHARE);
        long first = client();
        podProcess(proc, first);
        MpsStandIn.serve(dirs, 7004, first);
        NvmlStub.configure(CARD_LINE + "process 0 7004 66 mps\nprocess 0 %d 1000 both\n".formatted(first));
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(servers, nvml, nvml.discover(), proc, RESERVE);
            watchdog.enforce();
            // A second client connects: NVML shows it, and its server lists it.
            long second = client();
            podProcess(proc, second);
            MpsStandIn.serve(dirs, 7004, first, second);
            NvmlStub.update(
                    "process 0 7004 66 mps\nprocess 0 %d 1000 both\nprocess 0 %d 1000 both\n".formatted(first, second));

            watchdog.enforce();

            assertThat(watchdog.bypasses()).isEmpty();
            assertThat(watchdog.owners()).containsEntry(second, new MpsWatchdog.ShareProcess(SHARE, false));
            assertThat(ProcessHandle.of(second))
                    .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
        }
    }

    @Test
    void aClientHoldingMoreThanItsPartAndTheContextReserveIsEnded() throws IOException {
        MpsDirs dirs = daemons.ensure(SHARE);
        long within = client();
        long over = client();
        MpsStandIn.serve(dirs, 7005, within, over);
        // The limit is 19,456 MiB a process: a context above it is normal, a second reserve above it is not.
        NvmlStub.configure(CARD_LINE
                + "process 0 7005 66 mps\nprocess 0 %d %d both\nprocess 0 %d %d both\n"
                        .formatted(within, 19456 + 1024, over, 19456 + 2 * 1024 + 1));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            List<MpsWatchdog.Ended> ended = new MpsWatchdog(servers, nvml, nvml.discover(), RESERVE).enforce();

            assertThat(ended).singleElement().satisfies(e -> {
                assertThat(e.pid()).isEqualTo(over);
                assertThat(e.why()).isEqualTo(MpsWatchdog.Why.MEMORY);
                assertThat(e.how()).isEqualTo("terminate_client");
                assertThat(e.detail())
                        .isEqualTo("it held 21505 MiB on card 0, more than its limit of 19456 MiB and the 1024 MiB"
                                + " context reserve");
            });
            assertThat(MpsStandIn.clients(dirs, 7005)).containsExactly(Long.toString(within));
        }
    }

    @Test
    void afterALimitWasChangedTheClientsThatStartedSinceItWasLastSeenSetAreEnded() throws Exception {
        MpsDirs dirs = daemons.ensure(SHARE);
        long before = client();
        Thread.sleep(1500); // start times are known to within a second: one that started well before is kept
        java.time.Instant since = java.time.Instant.now();
        long after = client();
        MpsStandIn.serve(dirs, 7006, before, after);
        NvmlStub.configure(CARD_LINE);

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            List<MpsWatchdog.Ended> ended = new MpsWatchdog(servers, nvml, nvml.discover(), RESERVE)
                    .endStartedDuring(new LimitDrift(SHARE, 7006, "active_thread_percentage", "100.0", "30", since));

            assertThat(ended).singleElement().satisfies(e -> {
                assertThat(e.pid()).isEqualTo(after);
                assertThat(e.why()).isEqualTo(MpsWatchdog.Why.DRIFT);
            });
            assertThat(MpsStandIn.clients(dirs, 7006)).containsExactly(Long.toString(before));
        }
    }

    /** Makes {@code pid} a process of a pod, as {@code proc}'s cgroup file says. */
    private static void podProcess(Path proc, long pid) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(
                proc.resolve(Long.toString(pid)).resolve("cgroup"),
                "0::/kubepods/burstable/pod0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b/" + "c".repeat(64) + "\n");
    }

    @Test
    void anMpsClientOfTheShareIsNeverTakenForABypass() throws IOException {
        Path proc = dir.resolve("proc");
        MpsDirs dirs = daemons.ensure(SHARE);
        long client = client();
        Files.createDirectories(proc.resolve(Long.toString(client)));
        Files.writeString(
                proc.resolve(Long.toString(client)).resolve("cgroup"),
                "0::/kubepods/burstable/pod0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b/" + "c".repeat(64) + "\n");
        MpsStandIn.serve(dirs, 7003, client);
        NvmlStub.configure(CARD_LINE + "process 0 7003 66 mps\nprocess 0 %d 1000 both\n".formatted(client));

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            MpsWatchdog watchdog = new MpsWatchdog(servers, nvml, nvml.discover(), proc, RESERVE);
            for (int i = 0; i < 3; i++) {
                watchdog.enforce();
                // the server (7003) is the share's; a pid of no process and no pod cgroup, it is not a bypass either
                assertThat(watchdog.bypasses()).isEmpty();
            }
            assertThat(ProcessHandle.of(client))
                    .hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
        }
    }

    @Test
    void aCardWithNoProcessesCostsTheDaemonNothing() {
        MpsDirs dirs = daemons.ensure(SHARE);
        NvmlStub.configure(CARD_LINE);

        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            assertThat(new MpsWatchdog(servers, nvml, nvml.discover(), RESERVE).enforce())
                    .isEmpty();
        }

        assertThat(MpsStandIn.commands(dirs)).doesNotContain("get_server_list");
    }
}
