package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MigCardTest {

    private final MigGeometry h100 = MigGeometry.of("NVIDIA H100 80GB HBM3").orElseThrow();
    private final MigProfile oneG = h100.profile("1g.10gb").orElseThrow();
    private final MigProfile twoG = h100.profile("2g.20gb").orElseThrow();
    private final MigProfile threeG = h100.profile("3g.40gb").orElseThrow();
    private final MigProfile fourG = h100.profile("4g.40gb").orElseThrow();
    private final MigProfile sevenG = h100.profile("7g.80gb").orElseThrow();

    @Test
    void sevenSmallInstancesFillACardAndAnEighthDoesNotFit() {
        MigCard card = MigCard.empty(h100);
        for (int i = 0; i < 7; i++) {
            card = card.placeKeepingLargest(oneG).orElseThrow();
        }
        assertThat(card.freeComputeSlices()).isZero();
        assertThat(card.freeMemorySlices())
                .as("the eighth memory slice has no 1g start")
                .isEqualTo(1);
        assertThat(card.placeKeepingLargest(oneG)).isEmpty();
    }

    @Test
    void aSmallInstanceGoesToTheEndOfAnEmptyCardSoThatTheLargeProfilesStillFit() {
        MigCard kept = MigCard.empty(h100).placeKeepingLargest(oneG).orElseThrow();
        MigCard first = MigCard.empty(h100).placeFirstFit(oneG).orElseThrow();

        assertThat(kept.instances()).containsExactly(new MigCard.Instance(oneG, 6));
        assertThat(kept.placeKeepingLargest(fourG))
                .as("4g starts at 0 only, which is free")
                .isPresent();
        assertThat(first.instances()).containsExactly(new MigCard.Instance(oneG, 0));
        assertThat(first.placeFirstFit(fourG))
                .as("first fit took slice 0: no 4g any more")
                .isEmpty();
        assertThat(first.placeFirstFit(threeG)).isPresent();
    }

    @Test
    void twoThreeGInstancesTakeEveryMemorySliceAndLeaveOneComputeSliceNoProfileCanUse() {
        MigCard card = MigCard.empty(h100)
                .placeKeepingLargest(threeG)
                .flatMap(c -> c.placeKeepingLargest(threeG))
                .orElseThrow();
        assertThat(card.freeComputeSlices()).isEqualTo(1);
        assertThat(card.freeMemorySlices()).isZero();
        assertThat(card.placeKeepingLargest(oneG)).isEmpty();
    }

    @Test
    void threeTwoGAndOneOneGUseEveryComputeSlice() {
        MigCard card = MigCard.empty(h100);
        for (int i = 0; i < 3; i++) {
            card = card.placeKeepingLargest(twoG).orElseThrow();
        }
        card = card.placeKeepingLargest(oneG).orElseThrow();
        assertThat(card.freeComputeSlices()).isZero();
        assertThat(card.instances()).extracting(MigCard.Instance::start).containsExactly(0, 2, 4, 6);
    }

    @Test
    void theWholeCardsProfileFitsOnlyAnEmptyCard() {
        assertThat(MigCard.empty(h100).placeKeepingLargest(sevenG)).isPresent();
        assertThat(MigCard.empty(h100).with(oneG, 6).placeKeepingLargest(sevenG))
                .isEmpty();
    }

    @Test
    void instancesThatOverlapOrStartWhereTheirProfileMayNotAreRefused() {
        assertThatThrownBy(() -> MigCard.empty(h100).with(fourG, 0).with(threeG, 0))
                .hasMessageContaining("instance 3g.40gb at memory slice 0 is not a start of its profile or overlaps");
        assertThatThrownBy(() -> new MigCard(h100, List.of(new MigCard.Instance(threeG, 2))))
                .hasMessageContaining("3g.40gb at memory slice 2");
    }
}
