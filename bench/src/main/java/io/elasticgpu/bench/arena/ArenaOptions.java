package io.elasticgpu.bench.arena;

import io.elasticgpu.bench.cluster.ReplayOptions;
import io.elasticgpu.core.policy.Policies;
import java.nio.file.Path;
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

    public static final List<String> DEFAULT_CONTENDERS =
            List.of(Policies.DEFAULT, "elastic", "fgd", "hami-binpack-spread", "hami-binpack-binpack", "no-sharing");

    public ArenaOptions {
        contenders = List.copyOf(contenders);
    }
}
