package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.allocated;
import static io.elasticgpu.scheduler.K8s.claim;
import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClaimsTest {

    private static final Node N1 =
            NodeConversion.convert(node("n1", 2, 16_384, 0)).orElseThrow();

    private final Claims claims = new Claims(1000);
    private final ResourceClaim pending = claim("ns", "c", "uid-c", "4Gi");

    @Test
    void aClaimNotAllocatedHoldsNothingAndGivesNoPodsCards() {
        assertThat(claims.seen(pending, n -> N1)).isEmpty();

        assertThat(claims.byKey()).containsExactly(Map.entry("ns/c", pending));
        assertThat(claims.observed(Claims.id(pending))).isNull();
        assertThat(claims.count()).isEqualTo(1);
    }

    @Test
    void anAllocatedClaimHoldsItsShareUnderItsOwnIdAndNamesThePodsItIsReservedFor() {
        ResourceClaim claim = allocated(pending, "n1", 1, 4096, "uid-p");

        assertThat(claims.seen(claim, n -> N1)).containsExactly("uid-p");
        assertThat(Claims.id(claim)).isEqualTo("claim:uid-c");
        PodHolding held = claims.observed("claim:uid-c");
        assertThat(held.pod()).as("the claim's pods count themselves").isFalse();
        assertThat(held.placements())
                .singleElement()
                .satisfies(p -> assertThat(p.shares())
                        .extracting(s -> s.card() + ":" + s.memoryMib())
                        .containsExactly("1:4096"));

        claims.deleted(claim);
        assertThat(claims.observed("claim:uid-c")).isNull();
        assertThat(claims.byKey()).isEmpty();
    }

    @ParameterizedTest(name = "{0} MiB of a 16384 MiB card, block {1} MiB: {2} milli")
    @CsvSource({
        // the card's memory rounded down to the block is what a claim asking no memory consumes: 16384 -> 16000
        "16000, 1000, 1000",
        // less than that: a memory slice, which limits no compute
        "15999, 1000, 0",
        "8000, 1000, 0",
        // a block of 1 MiB offers the whole 16384
        "16384, 1, 1000",
        "16000, 1, 0",
    })
    void aClaimConsumingAllTheMemoryACardOffersIsTheCardAlone(long memory, long block, int milli) {
        Claims withBlock = new Claims(block);
        withBlock.seen(allocated(pending, "n1", 0, memory, "uid-p"), n -> N1);

        assertThat(withBlock
                        .observed("claim:uid-c")
                        .placements()
                        .getFirst()
                        .shares()
                        .getFirst()
                        .milli())
                .isEqualTo(milli);
    }

    @Test
    void deletingAnOldClaimKeepsTheNewOneOfTheSameName() {
        ResourceClaim newer = new ResourceClaimBuilder(pending)
                .editMetadata()
                .withUid("uid-c2")
                .endMetadata()
                .build();
        claims.seen(pending, n -> N1);
        claims.seen(newer, n -> N1);

        claims.deleted(pending);
        assertThat(claims.byKey()).containsExactly(Map.entry("ns/c", newer));
    }

    @Test
    void theClaimsHandedOutDoNotChangeWhenTheClaimsDo() {
        claims.seen(pending, n -> N1);
        Map<String, ResourceClaim> before = claims.byKey();

        claims.seen(claim("ns", "d", "uid-d", "1Gi"), n -> N1);
        claims.deleted(pending);

        assertThat(before).containsOnlyKeys("ns/c");
        assertThat(claims.byKey()).containsOnlyKeys("ns/d");
        assertThat(List.copyOf(claims.byKey().keySet())).isEqualTo(List.of("ns/d"));
    }
}
