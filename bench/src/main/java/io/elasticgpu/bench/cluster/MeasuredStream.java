package io.elasticgpu.bench.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One stream of a replay's pods and what it cost: the CPU seconds each process used meanwhile and how long that was;
 * and, to take off, the idle rates of the processes that work whether pods come or not.
 *
 * @param streamed what the stream itself measured (binds, latencies)
 * @param cpu      CPU seconds each process used from the first create until nothing had been bound for a while
 * @param seconds  how long that was
 */
record MeasuredStream(PodStream.Streamed streamed, Map<String, Double> cpu, double seconds) {

    /** When nothing has been bound for this long, the stream is over. */
    private static final Duration QUIET = Duration.ofSeconds(20);
    /** How long the background processes' CPU is sampled, once every node is up and before the extender starts. */
    private static final Duration IDLE = Duration.ofSeconds(15);
    /**
     * The processes that work whether pods come or not (kwok's node heartbeats, the API server and etcd that take
     * them, the controllers' loops): a slower stream of the same pods pays more of their work. kube-scheduler and the
     * extender are not among them: they are restarted or started for each stream, and count in full.
     */
    private static final Set<String> BACKGROUND = Set.of("etcd", "kube-apiserver", "kube-controller-manager", "kwok");

    /** Streams {@code pods} as {@code options} say, measuring the processes of {@code pids}. */
    static MeasuredStream run(
            KubernetesClient client, List<Pod> pods, ReplayOptions options, Map<String, Long> pids, PrintStream log) {
        Map<String, Double> before = ProcessUse.cpu(pids);
        long start = System.nanoTime();
        PodStream.Streamed streamed = PodStream.run(
                client, pods, options.clients(), options.gated(), QUIET, done -> log.printf("  %d created%n", done));
        return new MeasuredStream(streamed, ProcessUse.cpuSince(before, pids), (System.nanoTime() - start) / 1e9);
    }

    /** The CPU seconds beyond what the background processes' idle rates would have used over as long. */
    Map<String, Double> aboveIdle(Map<String, Double> idle) {
        return ProcessUse.aboveIdle(cpu, idle, seconds);
    }

    /**
     * The background processes' CPU seconds per second while no pod comes, of those among the control plane's
     * {@code pids}: sampled once, before the extender starts, so that its watches' cost to the API server counts as
     * its own in the stream.
     */
    static Map<String, Double> idleRates(Map<String, Long> pids, PrintStream log) {
        Map<String, Long> background = new LinkedHashMap<>(pids);
        background.keySet().retainAll(BACKGROUND);
        Map<String, Double> before = ProcessUse.cpu(background);
        long start = System.nanoTime();
        PodStream.sleep(IDLE.toMillis());
        Map<String, Double> idle =
                ProcessUse.perSecond(ProcessUse.cpuSince(before, background), (System.nanoTime() - start) / 1e9);
        log.println(
                "cluster-replay: idle CPU, ms per second: " + ReplayResult.rates(ReplayResult.millisPerSecond(idle)));
        return idle;
    }
}
