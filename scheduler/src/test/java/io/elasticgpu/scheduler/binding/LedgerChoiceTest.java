package io.elasticgpu.scheduler.binding;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.cache.Hold;
import io.elasticgpu.scheduler.cache.NodeConversion;
import io.elasticgpu.scheduler.decision.PodAsk;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LedgerChoiceTest {

    private static final Node N1 =
            NodeConversion.convert(node("n1", 2, 16_384, 0)).orElseThrow();

    private final LedgerChoice choice = new LedgerChoice(BinpackPolicy::new);
    private final PodAsk askOf8192Mib = PodAsk.of(
            pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192"))),
            PodAsks.Units.DEFAULT);

    private static PodGrant on(String node, int card, long mib) {
        return new PodGrant(
                node, Map.of("main", List.of(new PodGrant.Share(card, "GPU-" + node + "-" + card, 0, mib))));
    }

    /** A ledger of {@code reserved} ("card:MiB" each, space-separated) on n1's two 16384 MiB cards. */
    private static Map<String, String> ledger(String reserved) {
        Map<String, String> entries = new LinkedHashMap<>();
        int i = 0;
        for (String r : reserved.isEmpty() ? new String[0] : reserved.split(" ")) {
            String[] cardMib = r.split(":");
            entries.put(
                    "uid-" + i,
                    new LedgerEntry("ns/p" + i++, 0, on("n1", Integer.parseInt(cardMib[0]), Long.parseLong(cardMib[1])))
                            .toJson());
        }
        return entries;
    }

    @ParameterizedTest(name = "ledger [{0}], held {1}: card {2}")
    @CsvSource({
        // the filter's hold on card 1 is still free in the ledger: kept, though binpack alone would take either
        "'', n1:1, 1",
        // the hold no longer fits: 12000 + 8192 = 20192 > 16384 on card 1; binpack takes the card it fits, card 0
        "1:12000, n1:1, 0",
        // no hold: binpack takes the fuller card that fits, card 1 (16384 - 4096 = 12288 >= 8192 free)
        "1:4096, '', 1",
        // a hold on another node is not this bind's: binpack's choice
        "1:4096, n2:0, 1",
        // neither card fits: 12000 + 8192 > 16384 on both
        "0:12000 1:12000, n1:0, -1",
    })
    void theHeldCardsAreKeptWhileTheLedgerLeavesThemFreeElseThePolicyChoosesOnWhatItLeaves(
            String reserved, String held, int card) {
        Optional<Hold> hold = held.isEmpty()
                ? Optional.empty()
                : Optional.of(new Hold(on(held.split(":")[0], Integer.parseInt(held.split(":")[1]), 8192), 0));

        Optional<PodGrant> chosen = choice.choose(N1, ledger(reserved), hold, askOf8192Mib);

        assertThat(chosen.map(a -> a.containers().get("main").getFirst().card()))
                .isEqualTo(card < 0 ? Optional.empty() : Optional.of(card));
        if (card < 0) {
            assertThat(choice.refusal(N1, ledger(reserved), askOf8192Mib))
                    .startsWith("node n1 no longer fits the pod: ");
        }
    }
}
