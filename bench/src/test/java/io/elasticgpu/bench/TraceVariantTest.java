package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TraceVariantTest {

    private static final String HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos";

    /** Two T4 nodes of two cards, one G2 node of eight cards with little memory, one P100 node of two cards. */
    private static final List<Node> NODES = List.of(
            node("t4-a", "T4", 2, 64_000, 256_000),
            node("t4-b", "T4", 2, 64_000, 256_000),
            node("g2", "G2", 8, 96_000, 100_000),
            node("p100", "P100", 2, 16_000, 128_000));

    private static Node node(String name, String model, int cards, long cpu, long memory) {
        List<Card> out = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            out.add(Card.of(i, name + "/gpu" + i, model, 16_384));
        }
        return Node.of(name, cpu, memory, 110, out);
    }

    /** 60 slices, 30 one-card pods, 10 eight-card pods asking more memory than the G2 node has, 20 without GPU. */
    private static List<String> pods() {
        List<String> lines = new ArrayList<>(List.of(HEADER));
        IntStream.range(0, 120).forEach(i -> {
            String ask = i < 60
                    ? "4000,8000,1,460"
                    : i < 90 ? "8000,16000,1,1000" : i < 100 ? "8000,200000,8,1000" : "2000,4000,0,0";
            lines.add("pod-%03d,%s,,LS".formatted(i, ask));
        });
        return lines;
    }

    private static List<String[]> rows(TraceVariant.Result r) {
        return r.lines().stream().skip(1).map(l -> l.split(",", -1)).toList();
    }

    @Test
    void theShareOfGpuPodsNamesModelsAndNothingElseChanges() {
        TraceVariant.Result r = TraceVariant.of(pods(), NODES, 0.33, TraceVariant.Mix.PRODUCTION, "", 7);

        assertThat(r.gpuPods()).isEqualTo(100);
        assertThat(r.named()).isEqualTo(33);
        List<String[]> rows = rows(r);
        assertThat(rows.stream().filter(c -> !c[5].isEmpty())).hasSize(33);
        // pods without GPU never name a model; every other cell is as it was
        assertThat(rows.stream().filter(c -> c[3].equals("0")).map(c -> c[5])).allMatch(String::isEmpty);
        List<String> before = pods();
        for (int i = 0; i < rows.size(); i++) {
            String[] was = before.get(i + 1).split(",", -1);
            String[] now = rows.get(i);
            assertThat(now).hasSize(was.length);
            for (int c = 0; c < was.length; c++) {
                if (c != 5) {
                    assertThat(now[c]).isEqualTo(was[c]);
                }
            }
        }
        assertThat(r.lines().getFirst()).isEqualTo(HEADER);
    }

    @Test
    void aPodNamesOnlyModelsWithANodeThatCanHoldItAndProductionSlicesNameInferenceCards() {
        List<String[]> rows = rows(TraceVariant.of(pods(), NODES, 0.9, TraceVariant.Mix.PRODUCTION, "", 3));

        // the eight-card pods ask more memory than the one eight-card node has: none of them can name a model
        assertThat(rows.stream().filter(c -> c[3].equals("8")).map(c -> c[5])).allMatch(String::isEmpty);
        assertThat(rows.stream()
                        .filter(c -> c[4].equals("460") && !c[5].isEmpty())
                        .map(c -> c[5]))
                .isNotEmpty()
                .allMatch(s -> s.equals("T4") || s.equals("P100"));
        // no G3 or V100 node: a one-card pod names T4, G2, or a set holding one of the cluster's models
        assertThat(rows.stream()
                        .filter(c -> c[4].equals("1000") && c[3].equals("1"))
                        .map(c -> c[5]))
                .filteredOn(s -> !s.isEmpty())
                .isNotEmpty()
                .allMatch(s -> List.of(s.split("\\|")).stream()
                        .anyMatch(m -> List.of("T4", "G2", "P100").contains(m)));
    }

    @Test
    void theSameSeedGivesTheSameTraceAnotherSeedAnother() {
        TraceVariant.Result a = TraceVariant.of(pods(), NODES, 0.2, TraceVariant.Mix.PRODUCTION, "", 42);
        TraceVariant.Result b = TraceVariant.of(pods(), NODES, 0.2, TraceVariant.Mix.PRODUCTION, "", 42);
        TraceVariant.Result c = TraceVariant.of(pods(), NODES, 0.2, TraceVariant.Mix.PRODUCTION, "", 43);

        assertThat(a.lines()).isEqualTo(b.lines());
        assertThat(c.lines()).isNotEqualTo(a.lines());
        assertThat(c.named()).isEqualTo(a.named()).isEqualTo(20);
    }

    @Test
    void capacityNamesOneModelInProportionToItsCards() {
        // one-card pods only: T4 has 4 cards, G2 8, P100 2 of the 14
        List<String> lines = new ArrayList<>(List.of(HEADER));
        IntStream.range(0, 1400).forEach(i -> lines.add("pod-%04d,1000,1000,1,1000,,LS".formatted(i)));
        List<String[]> rows = rows(TraceVariant.of(lines, NODES, 1.0, TraceVariant.Mix.CAPACITY, "", 5));

        long g2 = rows.stream().filter(c -> c[5].equals("G2")).count();
        long t4 = rows.stream().filter(c -> c[5].equals("T4")).count();
        long p100 = rows.stream().filter(c -> c[5].equals("P100")).count();
        assertThat(g2 + t4 + p100).isEqualTo(1400);
        assertThat(g2).isBetween(700L, 900L);
        assertThat(t4).isBetween(320L, 480L);
        assertThat(p100).isBetween(140L, 260L);
    }

    @Test
    void namedPodsKeepWhatTheyNamedCountTowardTheShareAndAListWithoutTheColumnGetsIt() {
        List<String> lines = new ArrayList<>(List.of("name,cpu_milli,memory_mib,num_gpu,gpu_milli"));
        IntStream.range(0, 10).forEach(i -> lines.add("pod-%d,1000,1000,1,500".formatted(i)));
        TraceVariant.Result r = TraceVariant.of(lines, NODES, 0.5, TraceVariant.Mix.NAMED, "P100", 1);

        assertThat(r.lines().getFirst()).isEqualTo("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec");
        assertThat(rows(r).stream().filter(c -> c[5].equals("P100"))).hasSize(5);

        List<String> named = new ArrayList<>(List.of(HEADER));
        IntStream.range(0, 10).forEach(i -> named.add("pod-%d,1000,1000,1,500,%s,LS".formatted(i, i < 3 ? "G2" : "")));
        TraceVariant.Result again = TraceVariant.of(named, NODES, 0.5, TraceVariant.Mix.NAMED, "T4", 1);
        assertThat(again.namedBefore()).isEqualTo(3);
        assertThat(rows(again).stream().filter(c -> c[5].equals("G2"))).hasSize(3);
        assertThat(rows(again).stream().filter(c -> c[5].equals("T4"))).hasSize(2);
    }

    @Test
    void aShareTheMixCannotReachIsRefused() {
        assertThatThrownBy(() -> TraceVariant.of(pods(), NODES, 0.95, TraceVariant.Mix.NAMED, "G3", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("only 0 of 100 GPU pods can name models under this mix, fewer than the 95 asked");
    }
}
