package io.elasticgpu.simulator.report;

import java.util.List;
import java.util.Locale;

/** Policy reports as a table a person reads on a terminal, one row per policy. */
public final class TableReport {

    private TableReport() {}

    public static String of(String heading, List<PolicyReport> reports) {
        StringBuilder out = new StringBuilder(heading).append("\n\n");
        out.append(String.format(
                Locale.ROOT,
                "%-15s %9s %6s %9s %17s %17s %17s %17s %8s%n",
                "policy",
                "alloc@100",
                "sd",
                "unalloc",
                "first failure",
                "frag@80",
                "frag@90",
                "frag@100",
                "time"));
        out.append(String.format(
                Locale.ROOT,
                "%-15s %9s %6s %9s %17s %17s %17s %17s %8s%n",
                "",
                "%",
                "",
                "GPUs",
                "arrived% / GPUs",
                "amount% / ratio%",
                "amount% / ratio%",
                "amount% / ratio%",
                "s, sum"));
        for (PolicyReport r : reports) {
            out.append(String.format(
                    Locale.ROOT,
                    "%-15s %9s %6s %9s %17s %17s %17s %17s %8.1f%n",
                    r.policy(),
                    fixed(r.allocationAt100().mean()),
                    fixed(r.allocationAt100().sd()),
                    fixed(r.unallocatedGpusAt100()),
                    r.firstFailure()
                            .map(f -> fixed(f.arrivedPct()) + " / " + fixed(f.unallocatedGpus()))
                            .orElse("none"),
                    frag(r, 80),
                    frag(r, 90),
                    frag(r, 100),
                    r.elapsedMs() / 1000.0));
            r.limits()
                    .ifPresent(l -> out.append(String.format(
                            Locale.ROOT,
                            "  possible on these orders: bound %.2f %% (LP), offline packing %.2f %%;"
                                    + " %.2f points below the bound%n",
                            l.boundPct(),
                            l.offlinePct(),
                            l.boundPct() - r.allocationAt100().mean())));
            r.replay()
                    .ifPresent(c -> out.append(String.format(
                            Locale.ROOT,
                            "  replay of recorded events: %d of %d decisions match (first difference: %s)%n",
                            c.matching(),
                            c.events(),
                            c.firstDifference())));
        }
        return out.toString();
    }

    private static String frag(PolicyReport r, int level) {
        PolicyReport.Fragmentation f = r.fragmentation().get(level);
        return f == null ? "-" : fixed(f.amountPct()) + " / " + fixed(f.ratioPct());
    }

    private static String fixed(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
