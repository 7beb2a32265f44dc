package io.elasticgpu.node.isolation;

import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuProcess;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.ProcessOwner;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent checks of the processes on cards held through MPS, each round, against NVML's process lists and
 * the MPS servers of each unit ({@link ShareServers}):
 * <ul>
 *   <li><b>count</b>: MPS limits every client process to the share's per-process part, so a process beyond the count
 *   its holder declared would take more than the share; the youngest beyond the count are ended;</li>
 *   <li><b>memory</b>: a client holding more on a card than its part plus the context reserve is ended. MPS's pinned
 *   limit does not hold a client that names, in its own {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}, a card it cannot
 *   see (it then drops every pinned limit, NVIDIA's MPS v3 guide says), nor counts its CUDA context: this bounds what
 *   such a client takes from its neighbours to about the reserve, for as long as one round;</li>
 *   <li><b>bypass</b>: on a card held through MPS, every process must be one of its MPS servers or clients. In compute
 *   mode DEFAULT, CUDA runs a process whose {@code CUDA_MPS_PIPE_DIRECTORY} leads to no daemon as a plain process with
 *   no limit at all. A process of a pod (its cgroup says so) that is neither is killed in the round that sees it,
 *   after the servers of its card were asked again (a client may have connected since they were last asked). A
 *   process of the host is only reported.</li>
 * </ul>
 * It asks a unit's servers for their clients only when NVML shows the set of processes on the unit's cards changed
 * since the last round, and remembers which unit each MPS server and client belongs to, for usage and the limits'
 * audit. Ended clients are ended with MPS's own {@code terminate_client} (or by killing the process where that
 * fails). Not thread-safe: one round at a time, from the agent's isolation loop.
 */
public final class MpsWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(MpsWatchdog.class);
    /** How far a process's start time as Java reads it may be from the truth. */
    private static final java.time.Duration START_TIME_ERROR = java.time.Duration.ofSeconds(1);

    /** Why a process was ended. */
    public enum Why {
        /** beyond the number of processes its share allows */
        COUNT,
        /** holding more memory than its part and the context reserve */
        MEMORY,
        /** started while a limit of its share had been changed */
        DRIFT
    }

    /** One process ended. */
    public record Ended(MpsShare share, long pid, String how, Why why, String detail) {}

    /** A process of an MPS unit: one of its servers, or one of their clients. */
    public record ShareProcess(MpsShare share, boolean server) {}

    /** A process on a card held through MPS that is none of its servers or clients. */
    public record Bypass(int card, long pid, Optional<ProcessOwner> owner, String how) {}

    private final ShareServers servers;
    private final GpuBackend gpus;
    private final Path proc;
    private final long contextReserveMib;
    private final Map<String, Integer> cardByUuid = new HashMap<>();
    private final Map<String, Set<Long>> seen = new HashMap<>(); // unit key -> pids NVML showed on its cards
    private Map<Long, ShareProcess> owners = Map.of(); // server and client pids -> their unit
    private final Map<String, List<Long>> serversOf = new HashMap<>(); // unit key -> its servers' pids
    private final Set<Long> reported = new HashSet<>(); // host processes already reported as bypassing
    private List<Bypass> bypasses = List.of();

    public MpsWatchdog(ShareServers servers, GpuBackend gpus, Hardware hardware, long contextReserveMib) {
        this(servers, gpus, hardware, Path.of("/proc"), contextReserveMib);
    }

    /** @param proc the host's {@code /proc}, where a process's cgroup says which pod it belongs to */
    public MpsWatchdog(ShareServers servers, GpuBackend gpus, Hardware hardware, Path proc, long contextReserveMib) {
        this.servers = servers;
        this.gpus = gpus;
        this.proc = proc;
        this.contextReserveMib = contextReserveMib;
        hardware.gpus().forEach(g -> cardByUuid.put(g.uuid(), g.index()));
    }

    /** One round; returns the processes it ended. */
    public List<Ended> enforce() {
        Map<Integer, Map<Long, Long>> onCard = new HashMap<>(); // card -> pid -> MiB
        List<Ended> ended = new ArrayList<>();
        Map<Long, ShareProcess> next = new HashMap<>(owners);
        List<MpsShare> units = servers.units();
        Set<String> current = new HashSet<>();
        for (MpsShare unit : units) {
            current.add(unit.key());
            ended.addAll(refresh(unit, onCard, next, false));
        }
        seen.keySet().retainAll(current);
        serversOf.keySet().retainAll(current);
        next.values().removeIf(p -> !current.contains(p.share().key()));
        // A process of a pod seen outside MPS: ask the servers of its card again before ending it.
        Set<Integer> suspectCards = new HashSet<>();
        onCard.forEach((card, pids) -> pids.keySet().stream()
                .filter(pid ->
                        !next.containsKey(pid) && ProcessOwner.of(proc, pid).isPresent())
                .findAny()
                .ifPresent(pid -> suspectCards.add(card)));
        for (MpsShare unit : units) {
            if (unit.cards().stream().map(cardByUuid::get).anyMatch(suspectCards::contains)) {
                ended.addAll(refresh(unit, onCard, next, true));
            }
        }
        servedBy(units, next);
        owners = Map.copyOf(next);
        ended.addAll(overMemory(units, onCard));
        bypasses = bypasses(onCard);
        return ended;
    }

    /** Asks the unit's servers for their clients when NVML shows a change on its cards (or {@code always}). */
    private List<Ended> refresh(
            MpsShare unit, Map<Integer, Map<Long, Long>> onCard, Map<Long, ShareProcess> next, boolean always) {
        String key = unit.key();
        Set<Long> pids = new HashSet<>();
        for (String uuid : unit.cards()) {
            Integer card = cardByUuid.get(uuid);
            if (card != null) {
                pids.addAll(onCard.computeIfAbsent(card, this::processesOn).keySet());
            }
        }
        if (!always && pids.equals(seen.get(key))) {
            return List.of(); // nothing connected or left since the last round
        }
        seen.put(key, pids);
        next.values().removeIf(p -> p.share().key().equals(key));
        serversOf.remove(key);
        if (pids.isEmpty()) {
            return List.of();
        }
        List<Ended> ended = new ArrayList<>();
        try {
            Map<Long, List<Long>> processes = servers.processes(unit);
            serversOf.put(key, List.copyOf(processes.keySet()));
            processes.forEach((server, clients) -> {
                next.put(server, new ShareProcess(unit, true));
                clients.forEach(c -> next.put(c, new ShareProcess(unit, false)));
                ended.addAll(endBeyondCount(unit, server, clients));
            });
        } catch (MpsException e) {
            seen.remove(key); // ask again next round
            LOG.warn("MPS unit {}: cannot list its processes: {}", key, e.getMessage());
        }
        return ended;
    }

    /**
     * Each unit's servers in {@code next}: a server that serves one unit is that unit's; one that serves several (MPS
     * v3's server of a card, serving a namespace per share) is no single share's, and is recorded as a server of a
     * share with no holder, so that what it uses is not counted as one pod's.
     */
    private void servedBy(List<MpsShare> units, Map<Long, ShareProcess> next) {
        Map<String, MpsShare> byKey = new HashMap<>();
        units.forEach(u -> byKey.put(u.key(), u));
        Map<Long, List<MpsShare>> unitsOf = new HashMap<>();
        serversOf.forEach((key, pids) -> pids.forEach(pid -> {
            if (byKey.containsKey(key)) {
                unitsOf.computeIfAbsent(pid, p -> new ArrayList<>()).add(byKey.get(key));
            }
        }));
        unitsOf.forEach((pid, served) -> {
            MpsShare first = served.getFirst();
            next.put(
                    pid,
                    served.size() == 1
                            ? new ShareProcess(first, true)
                            : new ShareProcess(
                                    new MpsShare("server-" + pid, first.cards(), first.limits(), "", "", 0), true));
        });
    }

    /** The processes the last round found on cards held through MPS outside MPS (pods' ones it killed). */
    public List<Bypass> bypasses() {
        return bypasses;
    }

    /** The share each MPS server and client pid belonged to at the last round. */
    public Map<Long, ShareProcess> owners() {
        return owners;
    }

    /** Each unit's running MPS servers as the last round found them, for the limits' audit. */
    public Map<String, List<Long>> servers() {
        return Map.copyOf(serversOf);
    }

    /**
     * Ends the clients of {@code drift}'s unit that started after the changed limit was last read back as set: they
     * may run under it. A client that started before runs under the limit it started with. A process's start time is
     * known to within a second (Linux gives the boot time in whole seconds), so a client that started up to a second
     * before is ended too.
     */
    public List<Ended> endStartedDuring(LimitDrift drift) {
        List<Ended> out = new ArrayList<>();
        MpsShare unit = drift.share();
        Map<Long, List<Long>> processes;
        try {
            processes = servers.processes(unit);
        } catch (MpsException e) {
            LOG.warn("MPS unit {}: cannot list its processes after a changed limit: {}", unit.key(), e.getMessage());
            return out;
        }
        processes.forEach((server, clients) -> {
            for (long client : clients) {
                if (startTime(client).isAfter(drift.since().minus(START_TIME_ERROR))) {
                    out.add(end(unit, server, client, Why.DRIFT, drift.describe()));
                }
            }
        });
        return out;
    }

    private List<Ended> overMemory(List<MpsShare> units, Map<Integer, Map<Long, Long>> onCard) {
        Map<String, MpsShare> byKey = new HashMap<>();
        units.forEach(u -> byKey.put(u.key(), u));
        List<Ended> out = new ArrayList<>();
        Map<Long, Long> serverOf = new HashMap<>();
        serversOf.forEach((key, pids) -> pids.forEach(s -> serverOf.put(s, s)));
        for (var e : owners.entrySet()) {
            if (e.getValue().server()) {
                continue;
            }
            MpsShare unit = byKey.get(e.getValue().share().key());
            if (unit == null) {
                continue;
            }
            for (int i = 0; i < unit.cards().size(); i++) {
                Integer card = cardByUuid.get(unit.cards().get(i));
                long used =
                        card == null ? 0 : onCard.getOrDefault(card, Map.of()).getOrDefault(e.getKey(), 0L);
                long allowed = unit.limits().memoryMib().get(i) + 2 * contextReserveMib;
                if (used > allowed) {
                    long server = serversOf.getOrDefault(unit.key(), List.of()).stream()
                            .findFirst()
                            .orElse(0L);
                    out.add(end(
                            unit,
                            server,
                            e.getKey(),
                            Why.MEMORY,
                            "it held %d MiB on card %d, more than its limit of %d MiB and the %d MiB context reserve"
                                    .formatted(
                                            used,
                                            card,
                                            unit.limits().memoryMib().get(i),
                                            contextReserveMib)));
                    break;
                }
            }
        }
        return out;
    }

    /** A process of a pod outside MPS is killed; one of the host is reported once. */
    private List<Bypass> bypasses(Map<Integer, Map<Long, Long>> onCard) {
        List<Bypass> out = new ArrayList<>();
        Set<Long> hostSeen = new HashSet<>();
        onCard.forEach((card, pids) -> {
            for (long pid : pids.keySet()) {
                if (owners.containsKey(pid)) {
                    continue;
                }
                var owner = ProcessOwner.of(proc, pid);
                if (owner.isEmpty()) {
                    hostSeen.add(pid);
                    if (reported.add(pid)) {
                        LOG.warn(
                                "card {} is held through MPS, but host process {} uses it outside MPS; not ended",
                                card,
                                pid);
                        out.add(new Bypass(card, pid, owner, "not ended (a process of the host)"));
                    }
                    continue;
                }
                boolean killed = ProcessHandle.of(pid)
                        .map(ProcessHandle::destroyForcibly)
                        .orElse(false);
                String how = killed
                        ? "SIGKILL"
                        : "not ended: the process is not visible to the agent (is it in the host's pid namespace?)";
                LOG.warn(
                        "card {} is held through MPS; process {} of pod {} used it outside MPS (no server of its"
                                + " share served it): {}",
                        card,
                        pid,
                        owner.get().podUid(),
                        how);
                out.add(new Bypass(card, pid, owner, how));
            }
        });
        reported.retainAll(hostSeen);
        return out;
    }

    private Map<Long, Long> processesOn(int card) {
        Map<Long, Long> out = new HashMap<>();
        for (GpuProcess p : gpus.processes(card)) {
            out.merge((long) p.pid(), Math.max(0, p.usedMemoryMib()), Long::sum);
        }
        return out;
    }

    private List<Ended> endBeyondCount(MpsShare unit, long server, List<Long> clients) {
        int allowed = unit.limits().processes();
        if (clients.size() <= allowed) {
            return List.of();
        }
        List<Long> youngestFirst = clients.stream()
                .sorted(Comparator.comparing(MpsWatchdog::startTime)
                        .reversed()
                        .thenComparing(Comparator.reverseOrder()))
                .toList();
        List<Ended> out = new ArrayList<>();
        for (long pid : youngestFirst.subList(0, clients.size() - allowed)) {
            out.add(end(
                    unit, server, pid, Why.COUNT, "%d CUDA processes, %d allowed".formatted(clients.size(), allowed)));
        }
        return out;
    }

    /** Ends one client with MPS's terminate_client, or by killing it where that fails. */
    private Ended end(MpsShare unit, long server, long pid, Why why, String detail) {
        String how;
        try {
            servers.terminate(unit, server, pid);
            how = "terminate_client";
        } catch (MpsException e) {
            boolean killed =
                    ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
            how = killed
                    ? "SIGKILL (terminate_client failed: %s)".formatted(e.getMessage())
                    : "not ended: terminate_client failed (%s) and the process is not visible to the agent"
                            .formatted(e.getMessage());
        }
        LOG.warn("MPS unit {} ({}): {}; ended pid {} by {}", unit.key(), unit.holder(), detail, pid, how);
        return new Ended(unit, pid, how, why, detail);
    }

    private static Instant startTime(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).orElse(Instant.MIN);
    }
}
