package io.elasticgpu.bench.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long each kill of a component that placement or admission goes through left pods waiting: from the kill to
 * the next pod bound (and, for the controller that serves the webhook, to the next pod admitted through it), with
 * the pods that were waiting when it came.
 */
public final class Failovers {

    /**
     * One kill, timed.
     *
     * @param kind                the fault
     * @param atSecond            when, since the soak began
     * @param backSeconds         from the kill until the killed component was started again and answered
     *                            {@code /readyz} (kube-scheduler: until it was started again)
     * @param toNextBindSeconds   from the kill to the next pod bound; -1 if none came
     * @param toNextGpuBindSeconds from the kill to the next pod bound that asks our GPU resources (placed by the
     *                            extender, not only filtered); -1 if none came
     * @param toNextAdmitSeconds  the controller's: from the kill to the next pod admitted through the webhook; -1 for
     *                            the others, or if none came
     * @param pendingAtKill       pods created and not bound when it came
     */
    public record Kill(
            String kind,
            double atSecond,
            double backSeconds,
            double toNextBindSeconds,
            double toNextGpuBindSeconds,
            double toNextAdmitSeconds,
            int pendingAtKill) {}

    /**
     * The kills of one kind, summed up.
     *
     * @param kills            how many
     * @param toNextBindP50    median seconds from the kill to the next bind
     * @param toNextBindMax    the longest
     * @param over15Seconds    kills after which the next bind came later than 15 s (the goal)
     * @param toNextGpuBindP50 median seconds from the kill to the next bind of a pod asking our GPU resources
     * @param toNextGpuBindMax the longest
     * @param gpuOver15Seconds kills after which that came later than 15 s
     */
    public record Summary(
            int kills,
            double toNextBindP50,
            double toNextBindMax,
            int over15Seconds,
            double toNextGpuBindP50,
            double toNextGpuBindMax,
            int gpuOver15Seconds) {}

    private record Pending(String kind, long atNanos, long backNanos, int pendingAtKill) {}

    private final long start = System.nanoTime();
    private final List<Pending> pending = new ArrayList<>();

    /** Records a kill that began at {@code atNanos} and was over (the component back) now. */
    synchronized void record(String kind, long atNanos, int pendingAtKill) {
        pending.add(new Pending(kind, atNanos, System.nanoTime(), pendingAtKill));
    }

    /** Each kill, timed against the binds and admissions the users saw. */
    synchronized List<Kill> kills(Load load) {
        List<Kill> kills = new ArrayList<>();
        for (Pending p : pending) {
            double admit = p.kind().equals(Faults.Kind.CONTROLLER_LEADER_KILLED.name())
                    ? seconds(p.atNanos(), load.firstAdmissionAfter(p.atNanos()))
                    : -1;
            kills.add(new Kill(
                    p.kind(),
                    round((p.atNanos() - start) / 1e9),
                    round((p.backNanos() - p.atNanos()) / 1e9),
                    seconds(p.atNanos(), load.firstBindAfter(p.atNanos())),
                    seconds(p.atNanos(), load.firstGpuBindAfter(p.atNanos())),
                    admit,
                    p.pendingAtKill()));
        }
        return kills;
    }

    /** Per kind: the median and longest time to the next bind, and to the next GPU pod's bind. */
    static Map<String, Summary> summary(List<Kill> kills) {
        Map<String, List<Kill>> byKind = new LinkedHashMap<>();
        kills.stream()
                .filter(k -> k.toNextBindSeconds() >= 0)
                .forEach(k ->
                        byKind.computeIfAbsent(k.kind(), x -> new ArrayList<>()).add(k));
        Map<String, Summary> summary = new LinkedHashMap<>();
        byKind.forEach((kind, ks) -> {
            List<Double> all = ks.stream().map(Kill::toNextBindSeconds).sorted().toList();
            List<Double> gpu = ks.stream()
                    .map(Kill::toNextGpuBindSeconds)
                    .filter(x -> x >= 0)
                    .sorted()
                    .toList();
            summary.put(
                    kind,
                    new Summary(
                            all.size(),
                            median(all),
                            all.getLast(),
                            over15(all),
                            gpu.isEmpty() ? -1 : median(gpu),
                            gpu.isEmpty() ? -1 : gpu.getLast(),
                            over15(gpu)));
        });
        return summary;
    }

    private static double median(List<Double> sorted) {
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static int over15(List<Double> seconds) {
        return (int) seconds.stream().filter(x -> x > 15).count();
    }

    private static double seconds(long from, java.util.OptionalLong to) {
        return to.isPresent() ? round((to.getAsLong() - from) / 1e9) : -1;
    }

    private static double round(double seconds) {
        return Math.round(seconds * 10) / 10.0;
    }
}
