package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MPS v3 layout against the stand-in control program (src/test/resources/mps/nvidia-cuda-mps-control-v3: NVIDIA's
 * v3 command line, each command recorded by the daemon that received it) and the stand-in nvidia-smi
 * (src/test/resources/nvidia-smi), with a fake /proc and cgroup tree for the clients' cgroups.
 */
class MpsNamespacesTest {

    private static final String CARD0 = "GPU-00000000-1111-2222-3333-444444444444";
    private static final String CARD1 = "GPU-11111111-1111-2222-3333-444444444444";
    private static final String CARD2 = "GPU-22222222-1111-2222-3333-444444444444";
    private static final Hardware HARDWARE = new Hardware(
            "615.71.09",
            List.of(
                    gpu(0, CARD0, "00000000:1B:00.0"),
                    gpu(1, CARD1, "00000000:43:00.0"),
                    gpu(2, CARD2, "0000:C1:00.0")),
            Topology.uniform(3, Link.UNKNOWN));
    private static final long RESERVE = 1024;

    /** 20 GiB and 30 % for one process, on card 0. */
    private static final MpsShare A = share("dp-aaaa", List.of(CARD0), List.of(20480L), 30, 1);
    /** 10 GiB and 50 % for each of two processes, on card 0. */
    private static final MpsShare B = share("dp-bbbb", List.of(CARD0), List.of(10240L), 50, 2);

    @TempDir
    Path dir;

    private Path root;
    private MpsV3StandIn standIn;
    private MpsControl control;
    private Path smi;
    private CgroupMemoryLimits memory;
    private final List<String> restarts = new ArrayList<>();
    private final List<Process> clients = new ArrayList<>();

    @BeforeEach
    void install() {
        root = dir.resolve("mps");
        standIn = MpsV3StandIn.install(dir.resolve("bin"));
        control = new MpsControl(standIn.program(), false, "", Duration.ofSeconds(10));
        Map<String, String> busIds = new LinkedHashMap<>();
        HARDWARE.gpus().forEach(g -> busIds.put(g.uuid(), g.pciBusId()));
        smi = MpsV3StandIn.installNvidiaSmi(dir.resolve("smi"), busIds);
        memory = new CgroupMemoryLimits(
                smi, dir.resolve("cgroup"), dir.resolve("proc"), false, Duration.ofSeconds(10), HARDWARE);
    }

    @AfterEach
    void end() {
        MpsV3StandIn.killAll(root);
        clients.forEach(Process::destroyForcibly);
    }

    private MpsNamespaces open() {
        return MpsNamespaces.open(
                control,
                root,
                HARDWARE,
                Optional.of(memory),
                RESERVE,
                InstantSource.system(),
                (share, why) -> restarts.add(share.key() + ": " + why));
    }

    private MpsDirs daemon() {
        return new MpsDirs(root.resolve("v3").resolve("daemon"));
    }

    private List<String> commands() {
        return MpsV3StandIn.commands(daemon());
    }

    private Path namespaceDir(String server, String namespace) {
        return daemon().pipe().resolve(server).resolve(namespace);
    }

    @Test
    void twoSharesOnOneCardGetOneServerAndANamespaceEachWithTheirLimitsSetOnTheDaemonsSide() {
        MpsNamespaces v3 = open();

        MpsAccess a = v3.hold(A);
        MpsAccess b = v3.hold(B);

        assertThat(commands())
                .containsOnlyOnce("server create card_0 --uid=0 --allowed-devices=" + CARD0)
                .contains(
                        "namespace create s_dp_aaaa --server=card_0",
                        "namespace set s_dp_aaaa --server=card_0 --pinned-memory-limit=20480M"
                                + " --active-thread-percentage=30",
                        "namespace create s_dp_bbbb --server=card_0",
                        "namespace set s_dp_bbbb --server=card_0 --pinned-memory-limit=10240M"
                                + " --active-thread-percentage=50")
                .filteredOn(c -> c.startsWith("server create"))
                .hasSize(1);
        // one daemon for the node, multi-user, that sees every card
        assertThat(v3.daemons()).isEqualTo(1);
        assertThat(MpsV3StandIn.environment(daemon()))
                .contains("CUDA_MPS_PIPE_DIRECTORY=" + daemon().pipe())
                .noneMatch(
                        e -> e.startsWith("CUDA_VISIBLE_DEVICES") || e.contains("PERCENTAGE") || e.contains("LIMIT"));
        // the daemon reports the limits; the containers' environments hold none
        assertThat(standIn.call(daemon(), "namespace", "list", "--server=card_0", "--format=csv,noheader"))
                .contains("s_dp_aaaa,card_0,Ready,20G,30.00", "s_dp_bbbb,card_0,Ready,10G,50.00");
        for (MpsAccess access : List.of(a, b)) {
            assertThat(access.env()).containsExactly(Map.entry("CUDA_MPS_PIPE_DIRECTORY", MpsAccess.CONTAINER_PIPE));
        }
        assertThat(v3.shares()).containsExactly(A, B);
    }

    @Test
    void aContainerIsGivenItsNamespacesDirectoryAloneNeverTheDaemonsPipeDirectory() {
        MpsNamespaces v3 = open();

        MpsAccess a = v3.hold(A);
        MpsAccess b = v3.hold(B);

        Path aDir = namespaceDir("card_0", "s_dp_aaaa");
        assertThat(a.mounts()).containsExactly(Map.entry(aDir.toString(), MpsAccess.CONTAINER_PIPE));
        assertThat(b.mounts())
                .containsExactly(Map.entry(namespaceDir("card_0", "s_dp_bbbb").toString(), MpsAccess.CONTAINER_PIPE));
        // the namespace's own socket is there; the main control socket and the server's are not
        assertThat(aDir.resolve("control")).exists();
        assertThat(daemon().pipe().resolve("control")).exists();
        assertThat(a.mounts().keySet())
                .noneMatch(m -> Path.of(m).equals(daemon().pipe())
                        || Path.of(m).equals(daemon().pipe().resolve("card_0")))
                .noneMatch(m -> m.equals(daemon().shm().toString()));
        assertThat(a.mounts().values()).doesNotContain(MpsAccess.CONTAINER_SHM);
    }

    @Test
    void holdingTheSameShareAgainChangesNothing() {
        MpsNamespaces v3 = open();
        MpsAccess first = v3.hold(A);
        int sent = commands().size();

        MpsAccess again = v3.hold(A);

        assertThat(again).isEqualTo(first);
        assertThat(commands()).hasSize(sent);
    }

    @Test
    void otherLimitsForAShareAreSetOnlyWhileNoneOfItsProcessesRuns() throws IOException {
        MpsNamespaces v3 = open();
        v3.hold(A);
        MpsShare wider = share(A.key(), A.cards(), List.of(30720L), 40, 1);
        long pid = client("card_0", 0, "s_dp_aaaa");

        assertThatThrownBy(() -> v3.hold(wider))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("runs processes [%d]".formatted(pid))
                .hasMessageContaining("cannot take other limits");
        assertThat(v3.shares()).containsExactly(A);

        clients.getFirst().destroyForcibly();
        Awaitility.await()
                .until(() -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        v3.hold(wider);
        assertThat(commands())
                .contains("namespace set s_dp_aaaa --server=card_0 --pinned-memory-limit=30720M"
                        + " --active-thread-percentage=40");
        assertThat(v3.shares()).containsExactly(wider);
    }

    @Test
    void aNamespaceLimitChangedByACallerOfTheMainSocketIsFoundSetAgainAndReported() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        v3.hold(B);
        assertThat(v3.audit(Map.of())).isEmpty();

        // someone with the daemon's main control socket (never a container) raises A's limits
        standIn.call(
                daemon(),
                "namespace",
                "set",
                "s_dp_aaaa",
                "--server=card_0",
                "--pinned-memory-limit=80G",
                "--active-thread-percentage=100");

        List<LimitDrift> drifts = v3.audit(Map.of());

        assertThat(drifts)
                .extracting(
                        LimitDrift::share,
                        LimitDrift::server,
                        LimitDrift::setting,
                        LimitDrift::found,
                        LimitDrift::expected)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(
                                A, 0L, "namespace s_dp_aaaa pinned-memory-limit", "80G", "20480M"),
                        org.assertj.core.groups.Tuple.tuple(
                                A, 0L, "namespace s_dp_aaaa active-thread-percentage", "100.00", "30"));
        assertThat(standIn.call(daemon(), "namespace", "get", "s_dp_aaaa", "card_0", "pinned-memory-limit"))
                .isEqualTo("20G");
        assertThat(standIn.call(daemon(), "namespace", "get", "s_dp_aaaa", "card_0", "active-thread-percentage"))
                .isEqualTo("30.00");
        assertThat(v3.audit(Map.of())).isEmpty();
    }

    @Test
    void aDeletedNamespaceIsCreatedAgainByTheAudit() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        standIn.call(daemon(), "namespace", "delete", "s_dp_aaaa", "--server=card_0");

        assertThat(v3.audit(Map.of()))
                .singleElement()
                .satisfies(d -> assertThat(d.setting()).isEqualTo("namespace s_dp_aaaa"));

        assertThat(standIn.call(daemon(), "namespace", "get", "s_dp_aaaa", "card_0", "pinned-memory-limit"))
                .isEqualTo("20G");
    }

    @Test
    void aKilledDaemonIsStartedAgainWithEveryServerAndNamespace() {
        MpsNamespaces v3 = open();
        MpsAccess a = v3.hold(A);
        v3.hold(B);
        MpsShare two = share("dra-cccc", List.of(CARD1, CARD2), List.of(4096L, 4096L), 20, 1);
        v3.hold(two);
        long pid = MpsControl.pid(daemon().pipe());
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        Awaitility.await().until(() -> v3.daemons() == 0);

        assertThat(v3.check()).containsExactlyInAnyOrder(A.key(), B.key(), two.key());

        assertThat(MpsControl.pid(daemon().pipe())).isPositive().isNotEqualTo(pid);
        assertThat(v3.daemons()).isEqualTo(1);
        assertThat(restarts)
                .containsExactlyInAnyOrder(
                        A.key() + ": the MPS control daemon (pid %d) is gone".formatted(pid),
                        B.key() + ": the MPS control daemon (pid %d) is gone".formatted(pid),
                        two.key() + ": the MPS control daemon (pid %d) is gone".formatted(pid));
        assertThat(standIn.call(daemon(), "namespace", "list", "--format=csv,noheader"))
                .contains(
                        "s_dp_aaaa,card_0,Ready,20G,30.00",
                        "s_dp_bbbb,card_0,Ready,10G,50.00",
                        "s_dra_cccc,cards_1_2,Ready,4G,20.00");
        // the containers' mounts still lead to their namespace
        assertThat(Path.of(a.mounts().keySet().iterator().next()).resolve("control"))
                .exists();
        assertThat(v3.check()).isEmpty();
        assertThat(v3.audit(Map.of())).isEmpty();
    }

    @Test
    void aServerThatIsGoneIsCreatedAgainWithItsNamespaces() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        v3.hold(share("dp-dddd", List.of(CARD1), List.of(2048L), 10, 1));
        standIn.call(daemon(), "server", "delete", "card_0", "--force");

        assertThat(v3.check()).containsExactly(A.key());

        // the stand-in removes a deleted server's directory: the containers' mounts of the old one lead nowhere
        assertThat(restarts)
                .singleElement()
                .asString()
                .startsWith(A.key() + ": its MPS server card_0 is gone; its namespace's directory was made anew");
        assertThat(standIn.call(daemon(), "namespace", "get", "s_dp_aaaa", "card_0", "pinned-memory-limit"))
                .isEqualTo("20G");
    }

    @Test
    void aRestartedAgentAdoptsTheDaemonAndItsSharesAndStartsNoSecondDaemon() {
        MpsNamespaces first = open();
        MpsAccess access = first.hold(A);
        first.hold(B);
        long pid = MpsControl.pid(daemon().pipe());

        MpsNamespaces next = open(); // the agent restarted: the daemon kept running

        assertThat(next.shares()).containsExactly(A, B);
        assertThat(next.daemons()).isEqualTo(1);
        assertThat(next.hold(A)).isEqualTo(access);
        assertThat(next.check()).isEmpty();
        assertThat(next.audit(Map.of())).isEmpty();
        assertThat(MpsControl.pid(daemon().pipe())).isEqualTo(pid);
        assertThat(restarts).isEmpty();
        assertThat(commands()).filteredOn(c -> c.contains(" create ")).hasSize(3);
        assertThat(commands())
                .filteredOn(c -> c.startsWith("namespace set s_dp_aaaa"))
                .hasSize(1);
    }

    @Test
    void aShareAcrossTwoCardsGetsAServerOfItsOwnWithExactlyThoseCards() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        MpsShare two = share("dra-cccc", List.of(CARD2, CARD1), List.of(8192L, 6144L), 20, 1);

        MpsAccess access = v3.hold(two);

        assertThat(commands())
                .contains(
                        "server create cards_1_2 --uid=0 --allowed-devices=%s,%s".formatted(CARD1, CARD2),
                        "namespace create s_dra_cccc --server=cards_1_2",
                        // one pinned limit for every card of a namespace: the smallest
                        "namespace set s_dra_cccc --server=cards_1_2 --pinned-memory-limit=6144M"
                                + " --active-thread-percentage=20");
        assertThat(access.mounts())
                .containsOnlyKeys(namespaceDir("cards_1_2", "s_dra_cccc").toString());
        assertThat(v3.held()).extracting(MpsNamespaces.Held::server).containsExactly("card_0", "cards_1_2");
    }

    @Test
    void aServerWhoseCardIsMissingIsRefusedSinceItsClientsWouldRunUnheld() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        MpsV3StandIn.missingDevice(daemon(), CARD1);
        MpsShare onMissing = share("dp-eeee", List.of(CARD1), List.of(2048L), 10, 1);

        assertThatThrownBy(() -> v3.hold(onMissing))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("MPS server card_1")
                .hasMessageContaining("without any limit")
                .hasMessageContaining(
                        daemon().log().resolve("card_1").resolve("server.log").toString());

        assertThat(MpsV3StandIn.serverLog(daemon(), "card_1")).anyMatch(l -> l.contains("no CUDA-capable device"));
        assertThat(v3.shares()).containsExactly(A);
        assertThat(root.resolve("v3").resolve("shares").resolve("dp-eeee.json")).doesNotExist();
    }

    @Test
    void aCardNotOnTheNodeIsRefused() {
        MpsShare elsewhere =
                share("dp-ffff", List.of("GPU-99999999-0000-0000-0000-000000000000"), List.of(2048L), 10, 1);

        assertThatThrownBy(() -> open().hold(elsewhere))
                .isInstanceOf(MpsException.class)
                .hasMessageContaining("not on this node");
    }

    @Test
    void processesAreTheClientsOfTheSharesNamespaceAndEachClientsCgroupIsHeldToTheSharesMemory() throws IOException {
        MpsNamespaces v3 = open();
        v3.hold(A);
        v3.hold(B);
        long a = client("card_0", 0, "s_dp_aaaa");
        long b1 = client("card_0", 0, "s_dp_bbbb");
        long b2 = client("card_0", 0, "s_dp_bbbb");
        Path aCgroup = podCgroup(a, "aaaa");
        Path bCgroup = podCgroup(b1, "bbbb");
        podCgroup(b2, "bbbb");
        long server = Long.parseLong(standIn.call(daemon(), "server", "get", "card_0", "pid"));

        assertThat(v3.processes(A)).containsExactly(Map.entry(server, List.of(a)));
        assertThat(v3.processes(B)).containsOnlyKeys(server);
        assertThat(v3.processes(B).get(server)).containsExactlyInAnyOrder(b1, b2);

        // the whole container's memory on the card: (per-process limit + context reserve) x processes
        assertThat(Files.readAllLines(aCgroup.resolve("dmem.max")))
                .containsExactly("nvidia/00000000:1b:00.0/vidmem " + (20480L + RESERVE) * 1024 * 1024);
        assertThat(Files.readAllLines(bCgroup.resolve("dmem.max")))
                .containsExactly("nvidia/00000000:1b:00.0/vidmem " + (10240L + RESERVE) * 2 * 1024 * 1024);
        assertThat(MpsV3StandIn.smiCalls(smi))
                .containsExactly(
                        "memory-limits -i %s -n %s --soft-limit 0 --hard-limit %d"
                                .formatted(CARD0, aCgroup, 20480 + RESERVE),
                        "memory-limits -i %s -n %s --soft-limit 0 --hard-limit %d"
                                .formatted(CARD0, bCgroup, (10240 + RESERVE) * 2));
        // seen again: nothing to set
        v3.processes(A);
        v3.processes(B);
        assertThat(MpsV3StandIn.smiCalls(smi)).hasSize(2);
    }

    @Test
    void aClientOfAShareAcrossCardsIsHeldOnEachCard() throws IOException {
        MpsNamespaces v3 = open();
        MpsShare two = share("dra-cccc", List.of(CARD1, CARD2), List.of(8192L, 6144L), 20, 1);
        v3.hold(two);
        long pid = client("cards_1_2", 0, "s_dra_cccc");
        Path cgroup = podCgroup(pid, "cccc");

        assertThat(v3.processes(two).values()).containsExactly(List.of(pid));

        assertThat(Files.readAllLines(cgroup.resolve("dmem.max")))
                .containsExactlyInAnyOrder(
                        "nvidia/00000000:43:00.0/vidmem " + (8192L + RESERVE) * 1024 * 1024,
                        "nvidia/00000000:c1:00.0/vidmem " + (6144L + RESERVE) * 1024 * 1024);
    }

    @Test
    void theAuditPutsBackACgroupMemoryLimitThatChanged() throws IOException {
        MpsNamespaces v3 = open();
        v3.hold(A);
        long pid = client("card_0", 0, "s_dp_aaaa");
        Path cgroup = podCgroup(pid, "aaaa");
        v3.processes(A);
        assertThat(v3.audit(Map.of())).isEmpty();

        Files.writeString(cgroup.resolve("dmem.max"), "nvidia/00000000:1b:00.0/vidmem max\n");

        assertThat(v3.audit(Map.of())).singleElement().satisfies(d -> {
            assertThat(d.share()).isEqualTo(A);
            assertThat(d.setting()).isEqualTo("dmem.max nvidia/00000000:1b:00.0/vidmem");
            assertThat(d.found()).isEqualTo("max");
            assertThat(d.expected()).isEqualTo((20480 + RESERVE) + " MiB");
        });
        assertThat(Files.readAllLines(cgroup.resolve("dmem.max")))
                .containsExactly("nvidia/00000000:1b:00.0/vidmem " + (20480L + RESERVE) * 1024 * 1024);
        assertThat(v3.audit(Map.of())).isEmpty();

        // a cgroup removed with its container is forgotten, not an error
        Files.delete(cgroup.resolve("dmem.max"));
        assertThat(v3.audit(Map.of())).isEmpty();
    }

    @Test
    void terminateEndsTheClientThroughTheDaemon() throws IOException {
        MpsNamespaces v3 = open();
        v3.hold(A);
        long pid = client("card_0", 0, "s_dp_aaaa");
        long server = v3.processes(A).keySet().iterator().next();

        v3.terminate(A, server, pid);

        assertThat(commands()).contains("client terminate " + pid);
        Awaitility.await()
                .until(() -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertThat(v3.processes(A)).containsExactly(Map.entry(server, List.of()));
    }

    @Test
    void releasingDeletesTheNamespaceAndTheServerOnceNoShareIsLeftOnIt() {
        MpsNamespaces v3 = open();
        v3.hold(A);
        v3.hold(B);
        Path records = root.resolve("v3").resolve("shares");

        v3.release(A.key());

        assertThat(commands()).contains("namespace delete s_dp_aaaa --server=card_0 --force");
        assertThat(commands()).noneMatch(c -> c.startsWith("server delete"));
        assertThat(records.resolve("dp-aaaa.json")).doesNotExist();
        assertThat(records.resolve("dp-bbbb.json")).exists();

        assertThat(v3.retain(s -> false)).containsExactly(B.key());

        assertThat(commands())
                .contains("namespace delete s_dp_bbbb --server=card_0 --force", "server delete card_0 --force");
        assertThat(standIn.call(daemon(), "server", "list", "--format=csv,noheader"))
                .isEmpty();
        assertThat(v3.shares()).isEmpty();
        assertThat(records).isEmptyDirectory();
        v3.release(A.key()); // not held: nothing to do
    }

    @Test
    void namespacesAndServersOfOursThatNoRecordNamesAreDeletedWhenAdoptedAndAtEachCheck() throws IOException {
        MpsNamespaces first = open();
        first.hold(A);
        Path records = root.resolve("v3").resolve("shares");
        // left by an agent that stopped midway: namespaces of ours with no record, one with a running client, one on
        // a held server, one on a server of its own
        standIn.call(daemon(), "namespace", "create", "s_dp_gone", "--server=card_0");
        long orphan = client("card_0", 0, "s_dp_gone");
        standIn.call(daemon(), "server", "create", "card_1", "--uid=0", "--allowed-devices=" + CARD1);
        standIn.call(daemon(), "namespace", "create", "s_dp_lost", "--server=card_1");
        // A's namespace on another server than its record's is not A's
        standIn.call(daemon(), "namespace", "create", "s_dp_aaaa", "--server=card_1");
        // a record that cannot be read: its namespace and server are left as they are
        Files.writeString(records.resolve("dp-zzzz.json"), "{not json");
        standIn.call(daemon(), "server", "create", "card_2", "--uid=0", "--allowed-devices=" + CARD2);
        standIn.call(daemon(), "namespace", "create", "s_dp_zzzz", "--server=card_2");
        // a server not named as ours is never deleted, nor a namespace not named as ours; one named as ours is
        standIn.call(daemon(), "server", "create", "training", "--uid=0", "--allowed-devices=" + CARD1);
        standIn.call(daemon(), "namespace", "create", "team", "--server=training");
        standIn.call(daemon(), "namespace", "create", "s_team", "--server=training");

        MpsNamespaces next = open(); // the agent restarted

        assertThat(commands())
                .contains(
                        "namespace delete s_dp_gone --server=card_0 --force",
                        "namespace delete s_dp_lost --server=card_1 --force",
                        "namespace delete s_dp_aaaa --server=card_1 --force",
                        "server delete card_1 --force",
                        "namespace delete s_team --server=training --force")
                .noneMatch(c -> c.startsWith("server delete card_0")
                        || c.startsWith("server delete card_2")
                        || c.startsWith("server delete training")
                        || c.startsWith("namespace delete team ")
                        || c.contains("delete s_dp_zzzz")
                        || c.equals("namespace delete s_dp_aaaa --server=card_0 --force"));
        Awaitility.await()
                .until(() ->
                        !ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false));
        assertThat(standIn.call(daemon(), "namespace", "list", "--format=csv,noheader")
                        .lines()
                        .map(l -> l.split(",")[1] + "/" + l.split(",")[0])
                        .filter(n -> !n.endsWith("/default")))
                .containsExactlyInAnyOrder("card_0/s_dp_aaaa", "card_2/s_dp_zzzz", "training/team");
        assertThat(next.shares()).containsExactly(A);
        assertThat(next.audit(Map.of())).isEmpty();

        // while the agent runs (a release whose delete failed): found by the next check
        standIn.call(
                daemon(),
                "server",
                "create",
                "cards_1_2",
                "--uid=0",
                "--allowed-devices=%s,%s".formatted(CARD1, CARD2));
        standIn.call(daemon(), "namespace", "create", "s_dra_old", "--server=cards_1_2");

        assertThat(next.check()).isEmpty();

        assertThat(commands())
                .contains("namespace delete s_dra_old --server=cards_1_2 --force", "server delete cards_1_2 --force");
        assertThat(standIn.call(daemon(), "server", "list", "--format=csv,noheader")
                        .lines()
                        .map(l -> l.split(",")[0]))
                .containsExactlyInAnyOrder("card_0", "card_2", "training");
        assertThat(next.check()).isEmpty();
        assertThat(restarts).isEmpty();
    }

    @Test
    void namesAreWhatMpsAccepts() {
        assertThat(V3Control.serverName(List.of(3))).isEqualTo("card_3");
        assertThat(V3Control.serverName(List.of(5, 1, 5))).isEqualTo("cards_1_5");
        String many = V3Control.serverName(
                java.util.stream.IntStream.range(0, 40).boxed().toList());
        String key = "dra-" + "0123456789abcdef".repeat(7);
        for (String name : List.of(many, V3Control.namespaceName(key), V3Control.namespaceName("dp-a-b"))) {
            assertThat(name).matches("[a-z0-9_]{1,64}");
        }
        assertThat(V3Control.namespaceName("dp-a-b")).isEqualTo("s_dp_a_b");
        assertThat(V3Control.namespaceName(key)).isNotEqualTo(V3Control.namespaceName(key + "0"));
        // what the agent deletes when no record names it is only what it names so
        assertThat(List.of("card_3", "cards_1_5", many)).allMatch(V3Control::ourServer);
        assertThat(List.of("training", "card_", "cards", "card_3_x")).noneMatch(V3Control::ourServer);
    }

    @Test
    void listsAreReadByTheirHeaderWithQuotedFields() {
        String csv = """
                NAME,UID,PID,STATUS,PIPE DIRECTORY,ALLOWED DEVICES,CONTEXT IDS
                cards_0_1,0,48201,Ready,/run/nvidia-mps/cards_0_1,"GPU-a,GPU-b",-
                """;
        assertThat(MpsAnswers.rows(csv, List.of("name", "uid", "pid")))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r).containsEntry("pid", "48201").containsEntry("allowed-devices", "GPU-a,GPU-b");
                });
        // no header: NVIDIA's documented column order; a command line with commas stays whole
        assertThat(MpsAnswers.rows(
                        "51023,training,0,default,python train.py --a=1,2\n",
                        List.of("pid", "server", "device", "namespace", "cmd")))
                .singleElement()
                .satisfies(r -> assertThat(r)
                        .containsEntry("namespace", "default")
                        .containsEntry("cmd", "python train.py --a=1,2"));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** A running process that the daemon reports as a client of the namespace. */
    private long client(String server, int device, String namespace) throws IOException {
        Process p = new ProcessBuilder("sleep", "600").start();
        clients.add(p);
        MpsV3StandIn.client(daemon(), p.pid(), server, device, namespace);
        return p.pid();
    }

    /**
     * Puts the process, in the fake /proc, in the cgroup of pod {@code pod}'s container (with dmem files, under the
     * fake cgroup tree); returns the cgroup.
     */
    private Path podCgroup(long pid, String pod) throws IOException {
        String uid = "%s0000-0000-0000-0000-000000000000".formatted(pod);
        String path = "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope"
                .formatted(uid.replace('-', '_'), pod.repeat(16));
        Path procDir = dir.resolve("proc").resolve(Long.toString(pid));
        Files.createDirectories(procDir);
        Files.writeString(procDir.resolve("cgroup"), "0::" + path + "\n");
        Path cgroup = dir.resolve("cgroup").resolve(path.substring(1));
        Files.createDirectories(cgroup);
        if (!Files.exists(cgroup.resolve("dmem.max"))) {
            Files.writeString(cgroup.resolve("dmem.max"), "");
            Files.writeString(cgroup.resolve("dmem.min"), "");
        }
        return cgroup;
    }

    private static Gpu gpu(int index, String uuid, String bus) {
        return new Gpu(index, uuid, "NVIDIA H100 80GB HBM3", 81559, bus, index, 0, false);
    }

    private static MpsShare share(String key, List<String> cards, List<Long> memoryMib, int percent, int processes) {
        return new MpsShare(
                key, cards, new MpsLimits(memoryMib, percent, processes), "team-a/" + key + "/main", "held " + key, 0);
    }
}
