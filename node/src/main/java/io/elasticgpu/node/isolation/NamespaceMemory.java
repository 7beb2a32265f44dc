package io.elasticgpu.node.isolation;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each MPS v3 client's container held to its share's device memory by its cgroup, in the kernel, where the node has
 * the dmem controller ({@link CgroupMemoryLimits}): on each card of the share, the share's memory for the whole
 * container, {@code (per-process limit + context reserve) × processes}, set the first time a process of the share is
 * seen as a client ({@link #limit}) and read back and set again each round ({@link #audit}). A container that holds
 * two shares of one card gets both. That is what holds a client that escapes its pinned limit (MPS drops every pinned
 * limit of a client whose {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} names a card it cannot see); between a process's
 * start and the agent's next round it is held by the pinned limit only.
 *
 * <p>Nothing is reset on a container's cgroup when its share is released: its soft limit is 0, so it reserves nothing
 * on its parents, and its hard limit goes with the cgroup when kubelet removes it. Not thread-safe:
 * {@link MpsNamespaces} calls it under its lock.
 */
final class NamespaceMemory {

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceMemory.class);

    /** A card of a cgroup whose memory the agent holds. */
    private record Target(Path cgroup, String uuid) {}

    private final CgroupMemoryLimits m;
    private final Path proc;
    private final long contextReserveMib;
    private final InstantSource clock;
    private final Map<Target, Map<String, Long>> limits = new LinkedHashMap<>(); // -> MiB per share key
    private final Map<Target, Instant> limitVerified = new HashMap<>();
    private final Map<Long, Long> limitedClients = new HashMap<>(); // pid -> its start ticks, once limited
    private final Set<Long> unlimitable = new HashSet<>(); // pids whose limit could not be set, logged once

    /**
     * @param proc              the host's {@code /proc}, where each client's start time is read
     * @param contextReserveMib MiB of each process's share kept for its CUDA context, which the cgroup's limit counts
     */
    NamespaceMemory(CgroupMemoryLimits m, Path proc, long contextReserveMib, InstantSource clock) {
        this.m = m;
        this.proc = proc;
        this.contextReserveMib = contextReserveMib;
        this.clock = clock;
    }

    /** The share's memory on card {@code i} for its whole container, CUDA contexts included. */
    long containerMib(MpsShare share, int i) {
        return (share.limits().memoryMib().get(i) + contextReserveMib)
                * share.limits().processes();
    }

    /** Holds the client's cgroup to the share's memory on each card, once per process. */
    void limit(MpsShare share, long pid) {
        long ticks = DaemonProcess.of(proc, pid).map(DaemonProcess::startTicks).orElse(-1L);
        if (ticks < 0 || Long.valueOf(ticks).equals(limitedClients.get(pid))) {
            return;
        }
        try {
            Path cgroup = m.cgroup(pid)
                    .orElseThrow(() ->
                            new MpsException("process %d has no cgroup of its own that takes a limit".formatted(pid)));
            for (int i = 0; i < share.cards().size(); i++) {
                Target t = new Target(cgroup, share.cards().get(i));
                // a container may hold two shares of one card: its cgroup gets both
                Map<String, Long> by = limits.computeIfAbsent(t, k -> new LinkedHashMap<>());
                by.put(share.key(), containerMib(share, i));
                if (m.hold(cgroup, t.uuid(), sum(by))) {
                    LOG.info(
                            "MPS share {} ({}): process {}: cgroup {} held to {} MiB of {}",
                            share.key(),
                            share.holder(),
                            pid,
                            cgroup,
                            sum(by),
                            t.uuid());
                }
                limitVerified.put(t, clock.instant());
            }
            limitedClients.put(pid, ticks);
            unlimitable.remove(pid);
        } catch (MpsException e) {
            if (unlimitable.add(pid)) {
                LOG.warn(
                        "MPS share {} ({}): cannot hold the memory of its process {} by its cgroup; only its MPS"
                                + " pinned limit holds it: {}",
                        share.key(),
                        share.holder(),
                        pid,
                        e.getMessage());
            }
        }
    }

    /**
     * Reads every cgroup limit the agent set back and sets again any that changed; forgets the cgroups that are gone
     * with their containers and the clients that ended.
     *
     * @param shareOf the share held under a key
     * @return the limits that had changed, each now set again
     */
    List<LimitDrift> audit(Function<String, MpsShare> shareOf) {
        limitedClients
                .entrySet()
                .removeIf(e -> DaemonProcess.of(proc, e.getKey())
                        .map(p -> p.startTicks() != e.getValue())
                        .orElse(true));
        unlimitable.removeIf(pid -> DaemonProcess.of(proc, pid).isEmpty());
        List<LimitDrift> drifts = new ArrayList<>();
        for (Target t : List.copyOf(limits.keySet())) {
            long mib = sum(limits.get(t));
            Optional<Long> found;
            try {
                found = m.limitMib(t.cgroup(), t.uuid());
            } catch (MpsException e) {
                limits.remove(t); // the cgroup is gone with its container
                limitVerified.remove(t);
                continue;
            }
            if (found.equals(Optional.of(mib))) {
                limitVerified.put(t, clock.instant());
                continue;
            }
            MpsShare owner = shareOf.apply(limits.get(t).keySet().iterator().next());
            try {
                m.hold(t.cgroup(), t.uuid(), mib);
                LimitDrift d = new LimitDrift(
                        owner,
                        0,
                        "dmem.max " + m.regionOf(t.uuid()),
                        found.map(v -> v + " MiB").orElse("max"),
                        mib + " MiB",
                        limitVerified.getOrDefault(t, clock.instant()));
                LOG.warn("MPS share {} ({}): cgroup {}: {}", owner.key(), owner.holder(), t.cgroup(), d.describe());
                drifts.add(d);
                limitVerified.put(t, clock.instant());
            } catch (MpsException e) {
                LOG.warn(
                        "MPS share {}: the memory limit of cgroup {} on {} is {}, not {} MiB, and setting it again"
                                + " failed: {}",
                        owner.key(),
                        t.cgroup(),
                        t.uuid(),
                        found.map(v -> v + " MiB").orElse("max"),
                        mib,
                        e.getMessage());
            }
        }
        return drifts;
    }

    /** The control daemon started again: every client is limited again when next seen. */
    void daemonStarted() {
        limitedClients.clear();
    }

    /** Drops the share's part of the cgroup limits. */
    void forget(String key) {
        limits.values().forEach(by -> by.remove(key));
        limits.entrySet().removeIf(e -> e.getValue().isEmpty());
        limitVerified.keySet().retainAll(limits.keySet());
    }

    private static long sum(Map<String, Long> byShare) {
        return byShare.values().stream().mapToLong(Long::longValue).sum();
    }
}
