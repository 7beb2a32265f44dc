package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class CardSetsTest {

    @Test
    void walksEverySetOfTwoOfFourCardsInOrder() {
        int[] pick = {0, 1};
        List<String> seen = new ArrayList<>();
        do {
            seen.add(pick[0] + "" + pick[1]);
        } while (CardSets.next(pick, 4));
        assertThat(seen).containsExactly("01", "02", "03", "12", "13", "23");
    }

    @Property
    void walksAsManySetsAsItCounts(@ForAll @IntRange(min = 1, max = 10) int n, @ForAll @IntRange(max = 10) int k) {
        int size = Math.min(k, n);
        int[] pick = new int[size];
        for (int i = 0; i < size; i++) {
            pick[i] = i;
        }
        long walked = 0;
        do {
            walked++;
        } while (CardSets.next(pick, n));
        assertThat(walked).isEqualTo(CardSets.count(n, size));
    }

    @Test
    void aCountAboveTheIntRangeIsReportedAboveIt() {
        assertThat(CardSets.count(8, 4)).isEqualTo(70);
        assertThat(CardSets.count(62, 31)).isGreaterThan(Integer.MAX_VALUE);
    }
}
