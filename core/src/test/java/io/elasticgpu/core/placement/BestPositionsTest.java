package io.elasticgpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** {@link BestPositions} gives what sorting every eligible position and taking the first {@code k} gives. */
class BestPositionsTest {

    @Property(tries = 500)
    void theKBestEligiblePositionsBestFirstTheEarlierOfATieFirst(
            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 6) Integer> scores,
            @ForAll @IntRange(min = 0, max = 12) int k) {
        int[] best =
                BestPositions.of(scores.size(), k, i -> scores.get(i) != 0, (a, b) -> scores.get(a) > scores.get(b));

        int[] sorted = IntStream.range(0, scores.size())
                .filter(i -> scores.get(i) != 0) // 0 stands for a node the pod does not fit
                .boxed()
                .sorted(Comparator.comparing((Integer i) -> scores.get(i))
                        .reversed()
                        .thenComparing(i -> i))
                .limit(k)
                .mapToInt(i -> i)
                .toArray();
        assertThat(best).containsExactly(sorted);
    }
}
