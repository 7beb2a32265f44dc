package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class CardHoldingTest {

    private static Pod pod(String phase, boolean deleting) {
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("ns")
                .endMetadata();
        if (deleting) {
            b.editMetadata()
                    .withDeletionTimestamp("2026-11-25T00:00:00Z")
                    .withDeletionGracePeriodSeconds(60L)
                    .endMetadata();
        }
        if (phase != null) {
            b.withNewStatus().withPhase(phase).endStatus();
        }
        return b.build();
    }

    @Test
    void aRunningPodBeingDeletedStillHoldsItsCardsAndIsShownAsTerminating() {
        Pod p = pod("Running", true);
        assertThat(CardHolding.holdsCards(p)).isTrue();
        assertThat(CardHolding.terminating(p)).isTrue();
    }

    @Test
    void aFinishedPodHoldsNothingEvenBeforeItIsDeleted() {
        assertThat(CardHolding.holdsCards(pod("Succeeded", false))).isFalse();
        assertThat(CardHolding.holdsCards(pod("Failed", true))).isFalse();
        assertThat(CardHolding.terminating(pod("Failed", true))).isFalse();
    }

    @Test
    void pendingRunningAndStatuslessPodsHoldTheirCards() {
        assertThat(CardHolding.holdsCards(pod("Pending", false))).isTrue();
        assertThat(CardHolding.holdsCards(pod("Running", false))).isTrue();
        assertThat(CardHolding.holdsCards(pod(null, false))).isTrue();
        assertThat(CardHolding.terminating(pod("Running", false))).isFalse();
    }
}
