package io.elasticgpu.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Invariants of claim preparation over random claims, orders and restarts. */
class ClaimPreparationProperties {

    private final Hardware hw = DraCards.four();

    @Property(tries = 100)
    void preparingTwiceIsPreparingOnceAcrossARestart(
            @ForAll("claims") @Size(min = 1, max = 12) List<List<ClaimDevice>> asks, @ForAll long seed)
            throws IOException {
        inTempDir(dir -> {
            FakeClaims claims = fake(asks);
            Map<String, Object> first = prepareAll(preparation(dir, claims), claims, new Random(seed));
            Map<String, String> specs = specs(dir);

            Map<String, Object> again = prepareAll(preparation(dir, claims), claims, new Random(seed + 1));

            assertThat(again).isEqualTo(first);
            assertThat(specs(dir)).isEqualTo(specs);
        });
    }

    @Property(tries = 100)
    void theCheckpointReadsBackWhatWasWritten(@ForAll("claims") @Size(max = 12) List<List<ClaimDevice>> asks)
            throws IOException {
        inTempDir(dir -> {
            FakeClaims claims = fake(asks);
            ClaimPreparation p = preparation(dir, claims);
            prepareAll(p, claims, new Random(1));

            assertThat(Checkpoint.open(dir.resolve("plugin/checkpoint.json")).all())
                    .containsExactlyInAnyOrderElementsOf(p.prepared());
        });
    }

    @Property(tries = 200)
    void whateverTheOrderNoCardEverHoldsMoreThanItHas(
            @ForAll("claims") @Size(min = 1, max = 20) List<List<ClaimDevice>> asks, @ForAll long seed)
            throws IOException {
        inTempDir(dir -> {
            FakeClaims claims = fake(asks);
            ClaimPreparation p = preparation(dir, claims);
            Random random = new Random(seed);
            List<String> uids = new ArrayList<>(claims.byUid.keySet());
            for (int step = 0; step < 40; step++) {
                ClaimRef ref = ref(uids.get(random.nextInt(uids.size())));
                if (random.nextInt(4) == 0) {
                    p.unprepare(ref);
                } else {
                    try {
                        p.prepare(ref);
                    } catch (ClaimException refused) {
                        // refused: the card was full; the invariant below says nothing was half-done
                    }
                }
                long[] memory = new long[4];
                int[] milli = new int[4];
                p.prepared().stream().flatMap(c -> c.devices().stream()).forEach(d -> {
                    memory[d.card()] += d.memoryMib();
                    milli[d.card()] += d.milli();
                });
                for (int c = 0; c < 4; c++) {
                    assertThat(memory[c]).as("card %d memory", c).isLessThanOrEqualTo(81_920);
                    assertThat(milli[c]).as("card %d milli", c).isLessThanOrEqualTo(1000);
                }
            }
        });
    }

    @Provide
    Arbitrary<List<List<ClaimDevice>>> claims() {
        Arbitrary<ClaimDevice> device = Combinators.combine(
                        Arbitraries.of("gpu", "big", "pair/first"),
                                Arbitraries.integers().between(0, 3),
                        Arbitraries.longs().between(1, 80).map(g -> g * 1024),
                                Arbitraries.integers().between(0, 100))
                .as((request, card, memory, percent) ->
                        new ClaimDevice(request, "gpu-" + card, card, memory, percent * 10, Optional.of("s" + card)));
        return device.list().ofMinSize(1).ofMaxSize(3).list();
    }

    private ClaimPreparation preparation(Path dir, ClaimSource claims) {
        return DraCards.preparation(dir, claims, ClaimIsolation.NONE);
    }

    private static FakeClaims fake(List<List<ClaimDevice>> asks) {
        FakeClaims f = new FakeClaims();
        for (int i = 0; i < asks.size(); i++) {
            f.with("uid-" + i, asks.get(i).toArray(ClaimDevice[]::new));
        }
        return f;
    }

    /** Prepares every claim in a random order: uid → its devices, or the refusal's message. */
    private static Map<String, Object> prepareAll(ClaimPreparation p, FakeClaims claims, Random random) {
        List<String> uids = new ArrayList<>(claims.byUid.keySet());
        uids.sort(Comparator.naturalOrder());
        Map<String, Object> out = new TreeMap<>();
        List<String> order = new ArrayList<>(uids);
        Collections.shuffle(order, random);
        for (String uid : order) {
            try {
                out.put(uid, p.prepare(ref(uid)));
            } catch (ClaimException e) {
                out.put(uid, "refused");
            }
        }
        // A refusal depends on the order; what was prepared must not.
        out.values().removeIf("refused"::equals);
        return out;
    }

    private static ClaimRef ref(String uid) {
        return new ClaimRef("ns", "claim-" + uid, uid);
    }

    private static Map<String, String> specs(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        Path cdi = dir.resolve("cdi");
        if (Files.isDirectory(cdi)) {
            try (Stream<Path> files = Files.list(cdi)) {
                for (Path f : files.toList()) {
                    out.put(f.getFileName().toString(), Files.readString(f));
                }
            }
        }
        return out;
    }

    interface InDir {
        void run(Path dir) throws IOException;
    }

    /** Runs {@code body} in a fresh directory, deleted afterwards (jqwik has no @TempDir per try). */
    private static void inTempDir(InDir body) throws IOException {
        Path dir = Files.createTempDirectory("dra-prop");
        try {
            body.run(dir);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
