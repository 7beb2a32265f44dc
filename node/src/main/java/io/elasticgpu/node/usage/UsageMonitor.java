package io.elasticgpu.node.usage;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.Unattributed;
import io.elasticgpu.node.discovery.DiscoveryException;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuProcess;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.ProcessOwner;
import io.elasticgpu.node.discovery.ProcessUtilization;
import io.elasticgpu.node.isolation.MpsWatchdog.ShareProcess;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures what each container uses on each card, once per {@link #sample}: NVML's processes and their memory, and
 * its per-process SM samples since the last call, each process attributed
 * <ol>
 *     <li>to the pod and container its cgroup names ({@link ProcessOwner}), else</li>
 *     <li>as a client of an MPS share, to the share's holder, else</li>
 *     <li>as an MPS server: its SM use to the container its share's clients belong to (NVML names only the server
 *     under MPS, and each share has a server of its own), its memory (the server's own, not the pod's) to no one,
 *     else</li>
 *     <li>to no one ({@link NodeUsage#unattributed()}: the host's processes, or a pod the agent does not know).</li>
 * </ol>
 * A container whose processes hold more memory on a card than it was granted there in two samples in a row is
 * reported once ({@link Exceeded}) until it is back within its grant. Not thread-safe: one sample at a time.
 */
public final class UsageMonitor {

    private static final Logger LOG = LoggerFactory.getLogger(UsageMonitor.class);
    /** Samples in a row over the grant before it is reported: one sample can catch an allocation being freed. */
    static final int OVER_SAMPLES = 2;

    /** A container that used more memory on a card than it was granted. */
    public record Exceeded(String namespace, String pod, String container, int card, long usedMib, long grantedMib) {}

    /** One measurement: what was used, and the containers that have just gone over their grant. */
    public record Sample(NodeUsage usage, List<Exceeded> exceeded) {}

    private record Holder(String namespace, String pod, String container) {}

    private final GpuBackend gpus;
    private final Hardware hardware;
    private final Path proc;
    private final Supplier<Collection<PodView>> pods;
    private final Supplier<Map<Long, ShareProcess>> shares;
    private final InstantSource clock;
    private final long[] lastSampleMicros;
    private final Map<String, Integer> over = new HashMap<>(); // "ns/pod/container/card" -> samples in a row over

    /**
     * @param proc   the host's {@code /proc} (the agent runs in the host's pid namespace to see other pods' processes)
     * @param pods   the pods on this node now
     * @param shares the MPS server and client pids of each share (empty without isolation)
     */
    public UsageMonitor(
            GpuBackend gpus,
            Hardware hardware,
            Path proc,
            Supplier<Collection<PodView>> pods,
            Supplier<Map<Long, ShareProcess>> shares,
            InstantSource clock) {
        this.gpus = gpus;
        this.hardware = hardware;
        this.proc = proc;
        this.pods = pods;
        this.shares = shares;
        this.clock = clock;
        this.lastSampleMicros = new long[hardware.gpus().size()];
    }

    public Sample sample() {
        Map<String, PodView> byUid = new HashMap<>();
        pods.get().forEach(p -> byUid.put(p.uid(), p));
        Map<Long, ShareProcess> mps = shares.get();
        // Per card: holder -> [memory MiB, SM %, processes]; unattributed -> [memory, processes].
        Map<Integer, Map<Holder, long[]>> used = new TreeMap<>();
        Map<Integer, long[]> nobody = new TreeMap<>();
        for (int card = 0; card < hardware.gpus().size(); card++) {
            List<GpuProcess> processes;
            List<ProcessUtilization> samples;
            try {
                processes = gpus.processes(card);
                samples = gpus.utilization(card, lastSampleMicros[card]);
            } catch (DiscoveryException e) {
                LOG.warn("card {}: cannot read its processes: {}", card, e.getMessage());
                continue;
            }
            Map<Long, Integer> sm = new HashMap<>();
            for (ProcessUtilization u : samples) {
                sm.put((long) u.pid(), u.smPercent());
                lastSampleMicros[card] = Math.max(lastSampleMicros[card], u.timestampMicros());
            }
            Map<Holder, long[]> onCard = used.computeIfAbsent(card, c -> new HashMap<>());
            Map<String, Set<Holder>> clientsOfShare = new HashMap<>();
            List<GpuProcess> servers = new ArrayList<>();
            for (GpuProcess p : processes) {
                ShareProcess share = mps.get((long) p.pid());
                if (share != null && share.server()) {
                    servers.add(p);
                    continue;
                }
                Optional<Holder> holder = ownerOf(p.pid(), byUid)
                        .or(() -> Optional.ofNullable(share)
                                .map(s -> holderOf(s.share().holder())));
                if (holder.isEmpty()) {
                    long[] n = nobody.computeIfAbsent(card, c -> new long[2]);
                    n[0] += Math.max(0, p.usedMemoryMib());
                    n[1]++;
                    continue;
                }
                long[] u = onCard.computeIfAbsent(holder.get(), h -> new long[] {0, -1, 0});
                u[0] += Math.max(0, p.usedMemoryMib());
                addSm(u, sm.get((long) p.pid()));
                u[2]++;
                if (share != null) {
                    clientsOfShare
                            .computeIfAbsent(share.share().key(), k -> new HashSet<>())
                            .add(holder.get());
                }
            }
            for (GpuProcess server : servers) {
                ShareProcess share = mps.get((long) server.pid());
                long[] n = nobody.computeIfAbsent(card, c -> new long[2]);
                n[0] += Math.max(0, server.usedMemoryMib());
                n[1]++;
                Set<Holder> clients = clientsOfShare.getOrDefault(share.share().key(), Set.of());
                if (clients.size() != 1 && share.share().holder().isEmpty()) {
                    continue; // one server for several pods (per-card, v3): NVML cannot tell whose its SM use is
                }
                Holder to = clients.size() == 1
                        ? clients.iterator().next()
                        : holderOf(share.share().holder());
                addSm(onCard.computeIfAbsent(to, h -> new long[] {0, -1, 0}), sm.get((long) server.pid()));
            }
        }
        return new Sample(usage(used, nobody), exceeded(used, byUid));
    }

    private static void addSm(long[] u, Integer sm) {
        if (sm != null) {
            u[1] = Math.max(0, u[1]) + sm;
        }
    }

    private Optional<Holder> ownerOf(long pid, Map<String, PodView> byUid) {
        return ProcessOwner.of(proc, pid)
                .flatMap(o -> Optional.ofNullable(byUid.get(o.podUid()))
                        .map(p -> new Holder(
                                p.namespace(),
                                p.name(),
                                p.containerIds().getOrDefault(o.containerId(), "(unknown container)"))));
    }

    /** A share's holder as isolation names it: {@code namespace/pod/container}, or {@code namespace/claim} for DRA. */
    private static Holder holderOf(String holder) {
        String[] parts = holder.split("/", 3);
        return parts.length == 3
                ? new Holder(parts[0], parts[1], parts[2])
                : new Holder(parts[0], "", "claim/" + (parts.length > 1 ? parts[1] : holder));
    }

    private NodeUsage usage(Map<Integer, Map<Holder, long[]>> used, Map<Integer, long[]> nobody) {
        List<ContainerUsage> containers = new ArrayList<>();
        used.forEach((card, holders) -> holders.forEach((h, u) -> containers.add(
                new ContainerUsage(h.namespace(), h.pod(), h.container(), card, u[0], (int) u[1], (int) u[2]))));
        containers.sort(Comparator.comparing(ContainerUsage::namespace)
                .thenComparing(ContainerUsage::pod)
                .thenComparing(ContainerUsage::container)
                .thenComparingInt(ContainerUsage::card));
        List<Unattributed> other = new ArrayList<>();
        nobody.forEach((card, n) -> other.add(new Unattributed(card, n[0], (int) n[1])));
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        return new NodeUsage(DateTimeFormatter.ISO_INSTANT.format(now), containers, other);
    }

    private List<Exceeded> exceeded(Map<Integer, Map<Holder, long[]>> used, Map<String, PodView> byUid) {
        Map<String, Map<String, Map<Integer, Long>>> granted = new HashMap<>(); // ns/pod -> container -> card -> MiB
        byUid.values().forEach(p -> granted.put(p.namespace() + "/" + p.name(), p.granted()));
        List<Exceeded> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        used.forEach((card, holders) -> holders.forEach((h, u) -> {
            Long grant = granted.getOrDefault(h.namespace() + "/" + h.pod(), Map.of())
                    .getOrDefault(h.container(), Map.of())
                    .get(card);
            String key = h.namespace() + "/" + h.pod() + "/" + h.container() + "/" + card;
            if (grant == null || u[0] <= grant) {
                return; // within its grant, or a grant the agent cannot tell: nothing to compare
            }
            seen.add(key);
            if (over.merge(key, 1, Integer::sum) == OVER_SAMPLES) {
                out.add(new Exceeded(h.namespace(), h.pod(), h.container(), card, u[0], grant));
            }
        }));
        over.keySet().retainAll(seen);
        return out;
    }
}
