package io.elasticgpu.bench.arena;

import io.elasticgpu.bench.cluster.ReplayOptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code bench/run arena} was asked: the contenders, where to write the JSON and the SVG, and the replay's own
 * options (trace, nodes, order, cut, node count, clients), which every contender shares.
 *
 * @param replay     the trace, order and cut, as {@code cluster-replay} reads them (no baseline: each contender is
 *                   measured on its own)
 * @param contenders in the order they run and are listed
 * @param json       one object per contender, or null
 * @param chart      the allocation-against-arrival curves (SVG or PNG by the extension), or null
 */
public record ArenaOptions(ReplayOptions replay, List<Contender> contenders, Path json, Path chart) {

    public static final List<String> DEFAULT_CONTENDERS = List.of("elastic", "fgd", "hami-binpack-spread",
            "hami-binpack-binpack", "no-sharing");

    public static final String USAGE = """
            usage: bench/run arena [--contenders NAME,NAME,...] [--trace POD_LIST.csv] [--nodes NODE_LIST.csv]
                   [--events EVENTS.csv | --seed N] [--cut PCT] [--max-nodes N] [--clients N] [--no-gates]
                   [--json FILE] [--chart FILE.svg|FILE.png]
              contenders (default all): elastic, fgd (or another of our policies; POLICY-hami-names gives it HAMi's
                pods), hami-binpack-spread (HAMi's default),
              hami-binpack-binpack (any hami-NODE-GPU of binpack/spread), no-sharing
                   bench/run arena --report A.json[,B.json...] [--chart FILE]   (the table of earlier runs' contenders)""";

    /** Flags of cluster-replay that make no sense here: each contender brings its own scheduler and names. */
    private static final List<String> NOT_HERE = List.of("--policy", "--scheduler-config", "--extender-flag", "--api",
            "--no-baseline");

    /** @throws IllegalArgumentException naming the argument to change */
    public static ArenaOptions parse(List<String> args, Path shared) {
        List<String> contenders = DEFAULT_CONTENDERS;
        Path json = null;
        Path chart = null;
        List<String> replay = new ArrayList<>();
        List<String> rest = new ArrayList<>(args);
        while (!rest.isEmpty()) {
            String flag = rest.removeFirst();
            if (NOT_HERE.contains(flag)) {
                throw new IllegalArgumentException(flag + " is cluster-replay's; the arena gives each contender its own"
                        + " scheduler and resource names (choose them with --contenders)");
            }
            boolean ours = flag.equals("--contenders") || flag.equals("--json") || flag.equals("--chart");
            if (!ours) {
                replay.add(flag);
                continue;
            }
            if (rest.isEmpty()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = rest.removeFirst();
            switch (flag) {
                case "--contenders" -> contenders = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
                case "--json" -> json = Path.of(value);
                default -> chart = Path.of(value);
            }
        }
        if (contenders.isEmpty()) {
            throw new IllegalArgumentException("--contenders names none; known: " + String.join(", ", DEFAULT_CONTENDERS));
        }
        if (contenders.stream().distinct().count() < contenders.size()) {
            throw new IllegalArgumentException("--contenders names one twice: " + contenders);
        }
        replay.add("--no-baseline");
        ReplayOptions options = ReplayOptions.parse(replay, shared);
        if (options.warmExtender() > 0) {
            throw new IllegalArgumentException("--warm-extender is a cluster-replay option: the arena measures every"
                    + " contender from a fresh start");
        }
        List<Contender> parsed = contenders.stream().map(Contender::of).toList();
        return new ArenaOptions(options, parsed, json, chart);
    }
}
