package io.elasticgpu.node.usage;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a new measurement is worth writing into the node's annotation: one write per node per change a person
 * would notice, so that hundreds of nodes do not write every few seconds. Pure.
 */
public final class UsageChange {

    /** Memory that changed by less than this much, and by less than {@link #MEMORY_FRACTION}, is the same. */
    static final long MEMORY_MIB = 256;

    static final double MEMORY_FRACTION = 0.05;
    /** SM utilization that moved by less than this many points is the same. */
    static final int SM_POINTS = 10;
    /** Written again at least this often, so that readers can tell a measurement from a stale one. */
    public static final Duration REFRESH = Duration.ofMinutes(5);

    private UsageChange() {}

    /**
     * @param last  what was written last, or null
     * @param since how long ago it was written
     */
    public static boolean worthWriting(NodeUsage last, NodeUsage now, Duration since) {
        if (last == null
                || since.compareTo(REFRESH) >= 0
                || !last.unattributed().equals(now.unattributed()) && differs(sum(last), sum(now))) {
            return true;
        }
        Map<String, ContainerUsage> before = byKey(last);
        Map<String, ContainerUsage> after = byKey(now);
        if (!before.keySet().equals(after.keySet())) {
            return true;
        }
        for (var e : after.entrySet()) {
            ContainerUsage a = before.get(e.getKey());
            ContainerUsage b = e.getValue();
            if (differs(a.memoryMib(), b.memoryMib())
                    || a.processes() != b.processes()
                    || (a.smPercent() < 0) != (b.smPercent() < 0)
                    || Math.abs(a.smPercent() - b.smPercent()) >= SM_POINTS) {
                return true;
            }
        }
        return false;
    }

    private static boolean differs(long a, long b) {
        long delta = Math.abs(a - b);
        return delta >= MEMORY_MIB || delta > MEMORY_FRACTION * Math.max(a, b);
    }

    private static long sum(NodeUsage u) {
        return u.unattributed().stream()
                .mapToLong(NodeUsage.Unattributed::memoryMib)
                .sum();
    }

    private static Map<String, ContainerUsage> byKey(NodeUsage u) {
        Map<String, ContainerUsage> out = new HashMap<>();
        u.containers().forEach(c -> out.put(c.namespace() + "/" + c.pod() + "/" + c.container() + "/" + c.card(), c));
        return out;
    }
}
