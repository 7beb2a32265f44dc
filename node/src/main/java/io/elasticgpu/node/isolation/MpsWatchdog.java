package io.elasticgpu.node.isolation;

import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuProcess;
import io.elasticgpu.node.discovery.Hardware;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Holds each MPS share to the number of CUDA processes its holder declared: MPS limits every client process to the
 * share's per-process part, so a process beyond the count would take more than the share. Each round it asks a
 * share's daemon for its clients only when NVML shows the set of processes on the share's cards changed since the
 * last round, and ends the youngest clients beyond the count with MPS's {@code terminate_client} (or, where the
 * daemon refuses that, by killing the process). It also remembers which share each MPS server and client belongs to,
 * for the usage monitor. Not thread-safe: one round at a time, from the agent's isolation loop.
 */
public final class MpsWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(MpsWatchdog.class);

    /** One process ended for being beyond its share's count. */
    public record Ended(MpsShare share, long pid, String how) {
    }

    /** A process of an MPS share: its server, or one of its clients. */
    public record ShareProcess(MpsShare share, boolean server) {
    }

    private final MpsDaemons daemons;
    private final GpuBackend gpus;
    private final Map<String, Integer> cardByUuid = new HashMap<>();
    private final Map<String, Set<Long>> seen = new HashMap<>(); // share key -> pids NVML showed on its cards
    private Map<Long, ShareProcess> owners = Map.of();           // server and client pids -> their share

    public MpsWatchdog(MpsDaemons daemons, GpuBackend gpus, Hardware hardware) {
        this.daemons = daemons;
        this.gpus = gpus;
        hardware.gpus().forEach(g -> cardByUuid.put(g.uuid(), g.index()));
    }

    /** One round; returns the processes it ended. */
    public List<Ended> enforce() {
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
        return ended;
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
        List<Long> youngestFirst = clients.stream().sorted(Comparator.comparing(MpsWatchdog::startTime).reversed()
                .thenComparing(Comparator.reverseOrder())).toList();
        List<Ended> out = new ArrayList<>();
        for (long pid : youngestFirst.subList(0, clients.size() - allowed)) {
            String how;
            try {
                daemons.terminate(d, server, pid);
                how = "terminate_client";
            } catch (MpsException e) {
                boolean killed = ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
                how = killed ? "SIGKILL (terminate_client failed: %s)".formatted(e.getMessage())
                        : "not ended: terminate_client failed (%s) and the process is not visible to the agent".formatted(e.getMessage());
            }
            LOG.warn("MPS share {} ({}): {} CUDA processes, {} allowed; ended the youngest, pid {}, by {}", d.share().key(),
                    d.share().holder(), clients.size(), allowed, pid, how);
            out.add(new Ended(d.share(), pid, how));
        }
        return out;
    }

    private static Instant startTime(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).orElse(Instant.MIN);
    }
}
