package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** {@link Answers}' indexes answer every question as a scan of the answers in order would. */
class AnswersTest {

    private static final List<String> RESOURCES = List.of("r0", "r1");

    @Property(tries = 200)
    void everyQueryEqualsAPlainScanWhileAnswersComeChangeAndGo(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 80) int steps) {
        Random random = new Random(seed);
        Answers answers = new Answers();
        TreeMap<Long, Answer> plain = new TreeMap<>();
        for (int step = 0; step < steps; step++) {
            long serial = random.nextInt(12);
            if (random.nextInt(4) == 0) {
                answers.remove(serial);
                plain.remove(serial);
            } else {
                Answer a = answer(random);
                answers.put(serial, a);
                plain.put(serial, a);
            }
            assertThat(answers.size()).isEqualTo(plain.size());
            assertThat(answers.isEmpty()).isEqualTo(plain.isEmpty());
            assertThat(answers.latest()).isEqualTo(plain.lastEntry());
            assertThat(answers.entries()).containsExactlyElementsOf(plain.entrySet());
            assertThat(answers.guessOutstanding())
                    .isEqualTo(plain.values().stream().anyMatch(h -> !h.seen() && !h.certain()));
            assertThat(answers.anyUnseen()).isEqualTo(plain.values().stream().anyMatch(h -> !h.seen()));
            for (int c = 0; c < 4; c++) {
                ContainerKey k = container(c);
                assertThat(answers.taken(k))
                        .isEqualTo(plain.values().stream()
                                .anyMatch(h -> h.planOwner().equals(k)));
                assertThat(answers.anyFor(PodName.of(k)))
                        .isEqualTo(plain.values().stream()
                                .anyMatch(h -> PodName.of(h.grant().container()).equals(PodName.of(k))));
                Answer skip = plain.isEmpty() ? null : plain.firstEntry().getValue();
                assertThat(answers.first(k, skip))
                        .isEqualTo(plain.values().stream()
                                .filter(h -> h != skip && h.grant().container().equals(k))
                                .findFirst());
                for (String r : RESOURCES) {
                    assertThat(answers.holds(k, r))
                            .isEqualTo(plain.values().stream()
                                    .anyMatch(h -> h.grant().container().equals(k)
                                            && h.ids().containsKey(r)));
                    Optional<Map.Entry<Long, Answer>> without = plain.entrySet().stream()
                            .filter(e -> e.getValue().grant().container().equals(k)
                                    && !e.getValue().ids().containsKey(r))
                            .findFirst();
                    assertThat(answers.firstWithout(k, r)).isEqualTo(without);
                }
            }
        }
    }

    /** Containers 0 and 1 are in one pod, 2 and 3 in another. */
    private static ContainerKey container(int c) {
        return new ContainerKey("ns", "pod" + c / 2, "c" + c % 2);
    }

    private static Answer answer(Random random) {
        ContainerKey k = container(random.nextInt(4));
        String resource = RESOURCES.get(random.nextInt(2));
        return new Answer(
                new ContainerGrant(k, List.of(new Share(0, "GPU-0", 0, 1024)), Family.ELASTIC_GPU, ""),
                container(random.nextInt(4)),
                Map.of(resource, List.of("id" + random.nextInt(3))),
                0,
                random.nextBoolean(),
                random.nextBoolean());
    }
}
