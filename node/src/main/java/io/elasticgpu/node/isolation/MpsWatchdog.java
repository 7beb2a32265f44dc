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
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds each MPS share to the number of CUDA processes its holder declared: MPS limits every client process to the
 * share's per-process part, so a process beyond the count would take more than the share. Each round it asks a
 * share's daemon for its clients only when NVML shows the set of processes on the share's cards changed since the
 * last round, and ends the youngest clients beyond the count with MPS's {@code terminate_client} (or, where the
 * daemon refuses that, by killing the process). It also remembers which share each MPS server and client belongs to,
 * for the usage monitor.
 *
 * <p>It also ends a pod's process that uses a card held through MPS without going through MPS: cards share through
 * several daemons only in compute mode DEFAULT, where CUDA runs a process whose {@code CUDA_MPS_PIPE_DIRECTORY}
 * leads to no daemon as a plain process with no limit at all. On such a card every process must be one of this
 * agent's MPS servers or clients; a process of a pod (its cgroup says so) that is neither is killed. A process of
 * the host is only reported. Not thread-safe: one round at a time, from the agent's isolation loop.
 */
public final class MpsWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(MpsWatchdog.class);

    /** One process ended for being beyond its share's count. */
    public record Ended(MpsShare share, long pid, String how) {}

    /** A process of an MPS share: its server, or one of its clients. */
    public record ShareProcess(MpsShare share, boolean server) {}

    /** A process on a card held through MPS that is none of its daemons' servers or clients. */
    public record Bypass(int card, long pid, java.util.Optional<ProcessOwner> owner, String how) {}

    private final MpsDaemons daemons;
    private final GpuBackend gpus;
    private final Map<String, Integer> cardByUuid = new HashMap<>();
    private final Map<String, Set<Long>> seen = new HashMap<>(); // share key -> pids NVML showed on its cards
    private Map<Long, ShareProcess> owners = Map.of(); // server and client pids -> their share
    private final Path proc;
    private final Set<Long> reported = new HashSet<>(); // host processes already reported as bypassing
    private Set<Long> suspects = Set.of(); // pods' processes seen outside MPS once
    private List<Bypass> bypasses = List.of();

    public MpsWatchdog(MpsDaemons daemons, GpuBackend gpus, Hardware hardware) {
        this(daemons, gpus, hardware, Path.of("/proc"));
    }

    /** @param proc the host's {@code /proc}, where a process's cgroup says which pod it belongs to */
    public MpsWatchdog(MpsDaemons daemons, GpuBackend gpus, Hardware hardware, Path proc) {
        this.daemons = daemons;
        this.gpus = gpus;
        this.proc = proc;
        hardware.gpus().forEach(g -> cardByUuid.put(g.uuid(), g.index()));
    }

    /** One round; returns the processes it ended. */
    public List<Ended> enforce() {
        if (!suspects.isEmpty()) {
            seen.clear(); // ask every daemon again before ending a suspect: it may have just connected
        }
        Map<Integer, Set<Long>> onCard = new HashMap<>();
        List<Ended> ended = new ArrayList<>();
        Map<Long, ShareProcess> nextOwners = new HashMap<>(owners);
        Set<String> current = new HashSet<>();
        for (MpsDaemons.Daemon d : daemons.daemons()) {
            String key = d.share().key();
            current.add(key);
            Set<Long> pids = new HashSet<>();
            for (String uuid : d.share().cards()) {
                Integer card = cardByUuid.get(uuid);
                if (card != null) {
                    pids.addAll(onCard.computeIfAbsent(card, c -> pidsOn(c)));
                }
            }
            if (pids.equals(seen.get(key))) {
                continue; // nothing connected or left since the last round
            }
            seen.put(key, pids);
            nextOwners.values().removeIf(p -> p.share().key().equals(key));
            if (pids.isEmpty()) {
                continue;
            }
            try {
                for (long server : daemons.servers(d)) {
                    nextOwners.put(server, new ShareProcess(d.share(), true));
                    List<Long> clients = daemons.clients(d, server);
                    clients.forEach(c -> nextOwners.put(c, new ShareProcess(d.share(), false)));
                    ended.addAll(endBeyondCount(d, server, clients));
                }
            } catch (MpsException e) {
                seen.remove(key); // ask again next round
                LOG.warn("MPS share {}: cannot list its processes: {}", key, e.getMessage());
            }
        }
        seen.keySet().retainAll(current);
        nextOwners.values().removeIf(p -> !current.contains(p.share().key()));
        owners = Map.copyOf(nextOwners);
        bypasses = bypasses(onCard);
        return ended;
    }

    /** The processes the last round found on cards held through MPS outside MPS (pods' ones it killed). */
    public List<Bypass> bypasses() {
        return bypasses;
    }

    /**
     * A pod's process outside MPS is ended the second round in a row it is seen so (the first may catch a client
     * between connecting and its daemon's next answer).
     */
    private List<Bypass> bypasses(Map<Integer, Set<Long>> onCard) {
        List<Bypass> out = new ArrayList<>();
        Set<Long> hostSeen = new HashSet<>();
        Set<Long> nextSuspects = new HashSet<>();
        onCard.forEach((card, pids) -> {
            for (long pid : pids) {
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
                if (!suspects.contains(pid)) {
                    nextSuspects.add(pid);
                    continue;
                }
                boolean killed = ProcessHandle.of(pid)
                        .map(ProcessHandle::destroyForcibly)
                        .orElse(false);
                String how = killed
                        ? "SIGKILL"
                        : "not ended: the process is not visible to the agent (is it in the host's pid namespace?)";
                LOG.warn(
                        "card {} is held through MPS; process {} of pod {} used it outside MPS (no daemon of its "
                                + "share served"
                                + " it): {}",
                        card,
                        pid,
                        owner.get().podUid(),
                        how);
                out.add(new Bypass(card, pid, owner, how));
            }
        });
        reported.retainAll(hostSeen);
        suspects = nextSuspects;
        return out;
    }

    /** The share each MPS server and client pid belonged to at the last round. */
    public Map<Long, ShareProcess> owners() {
        return owners;
    }

    private Set<Long> pidsOn(int card) {
        Set<Long> out = new HashSet<>();
        for (GpuProcess p : gpus.processes(card)) {
            out.add((long) p.pid());
        }
        return out;
    }

    private List<Ended> endBeyondCount(MpsDaemons.Daemon d, long server, List<Long> clients) {
        int allowed = d.share().limits().processes();
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
            String how;
            try {
                daemons.terminate(d, server, pid);
                how = "terminate_client";
            } catch (MpsException e) {
                boolean killed = ProcessHandle.of(pid)
                        .map(ProcessHandle::destroyForcibly)
                        .orElse(false);
                how = killed
                        ? "SIGKILL (terminate_client failed: %s)".formatted(e.getMessage())
                        : "not ended: terminate_client failed (%s) and the process is not visible to the agent"
                                .formatted(e.getMessage());
            }
            LOG.warn(
                    "MPS share {} ({}): {} CUDA processes, {} allowed; ended the youngest, pid {}, by {}",
                    d.share().key(),
                    d.share().holder(),
                    clients.size(),
                    allowed,
                    pid,
                    how);
            out.add(new Ended(d.share(), pid, how));
        }
        return out;
    }

    private static Instant startTime(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).orElse(Instant.MIN);
    }
}
