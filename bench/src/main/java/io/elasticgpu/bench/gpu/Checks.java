package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.isolation.IsolationConfig.Layout;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Each figure of the check as true, false or null (not measured: its step failed or did not run, the layout is not
 * there, or what it needs is missing, such as the fake pods' cgroups), under {@code <layout>.<figure>} and
 * {@code <layout>.<pod>.<figure>}, from the JSON the run wrote. The same keys for every layout. Pure.
 */
final class Checks {

    private Checks() {}

    static Map<String, Object> of(Map<String, Object> json) {
        Map<String, Object> c = new LinkedHashMap<>();
        Map<String, Object> layouts = object(json.get("layouts"));
        for (Layout l : GpuIsolationCheck.LAYOUTS) {
            String k = l.flag() + ".";
            Map<String, Object> r = object(layouts.get(l.flag()));
            Map<String, Object> pods = object(r.get("pods"));
            for (Pod p : Pod.BOTH) {
                Map<String, Object> x = object(pods.get(p.name()));
                String kp = k + p.name() + ".";
                c.put(kp + "memoryLimitHeld", bool(x.get("memoryLimitHeld")));
                c.put(kp + "seenLimitWithin1Pct", test(x.get("seenErrorPct"), v -> v <= 1.0));
                c.put(kp + "aloneWithinSharePlus10", bool(x.get("aloneWithinSharePlus10")));
                c.put(kp + "withinShare10", bool(x.get("withinShare10")));
                c.put(kp + "heldWithinShare", bool(x.get("heldWithinShare")));
                c.put(kp + "usageWithin5Pct", test(x.get("usageErrorPct"), v -> v <= 5.0));
            }
            c.put(k + "togetherAtLeast90PctOfUnlimited", test(r.get("togetherFractionOfUnlimited"), v -> v >= 0.9));
            c.put(k + "contextWithinReserve", test(r.get("contextOverheadMiB"), v -> v <= Rig.CONTEXT_RESERVE_MIB));
            c.put(k + "daemonKilledClientKeptComputing", bool(r.get("daemonKilledClientKeptComputing")));
            c.put(
                    k + "daemonBackWithin10s",
                    r.get("daemonKilledPid") == null
                            ? null
                            : test(r.get("daemonRestartSeconds"), v -> v <= 10.0) == Boolean.TRUE);
            c.put(k + "afterRestartLimitsHeld", bool(r.get("afterRestartLimitsHeld")));
            c.put(k + "envRaiseRefused", bool(r.get("envRaiseRefused")));
            Boolean escaped = bool(r.get("invisibleCardEscape"));
            c.put(
                    k + "invisibleCardHeld",
                    escaped == null
                            ? null
                            : !escaped || test(r.get("invisibleCardEndedSeconds"), v -> v <= 5.0) == Boolean.TRUE);
            c.put(k + "controlPipeRefused", bool(r.get("controlPipeRefused")));
            c.put(k + "controlPipeRestoredByAgent", bool(r.get("controlPipeRestoredByAgent")));
            Boolean killed = bool(r.get("bypassKilled"));
            c.put(
                    k + "bypassEndedWithin2s",
                    killed == null
                            ? null
                            : killed && test(r.get("bypassSecondsToKill"), v -> v <= 2.0) == Boolean.TRUE);
            c.put(k + "extraProcessEnded", bool(r.get("extraProcessEnded")));
            c.put(k + "firstTwoStillRunning", bool(r.get("firstTwoStillRunning")));
            c.put(k + "agentRestartKeptDaemon", bool(r.get("agentRestartKeptDaemon")));
        }
        return c;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static Boolean bool(Object o) {
        return o instanceof Boolean b ? b : null;
    }

    private static Boolean test(Object o, Predicate<Double> p) {
        return o instanceof Number n ? p.test(n.doubleValue()) : null;
    }
}
