package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MigGeometryTest {

    private final MigGeometry h100 = MigGeometry.of("NVIDIA H100 80GB HBM3").orElseThrow();

    @Test
    void theShippedTableGivesTheH100ItsSixProfilesOnSevenComputeAndEightMemorySlices() {
        assertThat(h100.computeSlices()).isEqualTo(7);
        assertThat(h100.memorySlices()).isEqualTo(8);
        assertThat(h100.profiles())
                .extracting(MigProfile::name)
                .containsExactly("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb");
        assertThat(h100.profile("3g.40gb").orElseThrow().starts()).containsExactly(0, 4);
        assertThat(MigGeometry.of("NVIDIA A30").orElseThrow().memorySlices()).isEqualTo(4);
    }

    @Test
    void aModelIsFoundWhateverItsCaseAndSeparatorsAndACardWithoutMigHasNoGeometry() {
        assertThat(MigGeometry.of("nvidia_h100_80gb_hbm3")).contains(h100);
        assertThat(MigGeometry.of("Tesla T4")).isEmpty();
    }

    @Test
    void aProfileIsFoundByTheSlicesItsInstancesTake() {
        assertThat(h100.profile(1, 2).orElseThrow().name()).isEqualTo("1g.20gb");
        assertThat(h100.profile(2, 2).orElseThrow().name()).isEqualTo("2g.20gb");
        assertThat(h100.profile(4, 4).orElseThrow().name()).isEqualTo("4g.40gb");
        assertThat(h100.profile(5, 6)).as("no 5g on an H100").isEmpty();
    }

    @Test
    void aProfileNoModelHasIsUnknownAndOneOfAComputeInstanceIsKnownByItsGpuInstance() {
        assertThat(MigGeometry.unknown("3g.40gb")).isEmpty();
        assertThat(MigGeometry.unknown("1c.3g.40gb")).isEmpty();
        assertThat(MigGeometry.unknown("1g.6gb")).as("the A30's").isEmpty();
        assertThat(MigGeometry.unknown("5g.50gb").orElseThrow())
                .startsWith("no card model has MIG profile 5g.50gb; the models and their profiles are")
                .contains("NVIDIA A30: 1g.6gb, 2g.12gb, 4g.24gb");
    }

    @Test
    void theSmallestProfileHoldingAnAskHasTheFewestComputeSlicesThenTheFewestMemorySlices() {
        assertThat(h100.smallestHolding(100).orElseThrow().name()).isEqualTo("1g.10gb");
        assertThat(h100.smallestHolding(142).orElseThrow().name())
                .as("1/7 of a card is 142.9")
                .isEqualTo("1g.10gb");
        assertThat(h100.smallestHolding(143).orElseThrow().name()).isEqualTo("2g.20gb");
        assertThat(h100.smallestHolding(500).orElseThrow().name()).isEqualTo("4g.40gb");
        assertThat(h100.smallestHolding(580).orElseThrow().name())
                .as("no 5g or 6g")
                .isEqualTo("7g.80gb");
        assertThat(h100.smallestHolding(1000).orElseThrow().name()).isEqualTo("7g.80gb");
        assertThat(h100.smallestHolding(1001)).isEmpty();
    }

    @Test
    void aTableWithAMistakeIsRefusedNamingTheLine() {
        assertThatThrownBy(() -> MigGeometry.parse("t.csv", "models,slices\n"))
                .hasMessageContaining("t.csv line 1: the first line must be \"" + MigGeometry.HEADER);
        assertThatThrownBy(() -> MigGeometry.parse("t.csv", MigGeometry.HEADER + "\nX,7/8,1g,1,1,0|9\nX,7/8,7g,7,8,0"))
                .hasMessageContaining("t.csv line 2")
                .hasMessageContaining("profile 1g does not fit a card of 7 compute and 8 memory slices");
        assertThatThrownBy(() -> MigGeometry.parse("t.csv", MigGeometry.HEADER + "\nX,7/8,1g,1,1"))
                .hasMessageContaining("t.csv line 2: 5 fields, a row has 6");
    }

    @Test
    void aGeometryWithoutAWholeCardProfileIsRefused() {
        assertThatThrownBy(() -> new MigGeometry(List.of("X"), 7, 8, List.of(new MigProfile("1g", 1, 1, List.of(0)))))
                .hasMessageContaining("no profile takes the whole card");
    }
}
