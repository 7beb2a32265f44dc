package io.elasticgpu.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class AskTest {

    @Test
    void shapesAreTellApart() {
        assertThat(Ask.cpuOnly(1000, 10).tag()).isEqualTo("cpu");
        assertThat(Ask.computeSlice(1000, 10, 500).tag()).isEqualTo("share");
        assertThat(Ask.wholeCards(1000, 10, 1).tag()).isEqualTo("1-gpu");
        assertThat(Ask.wholeCards(1000, 10, 8).tag()).isEqualTo("8-gpu");
        assertThat(Ask.wholeCards(1000, 10, 2).wholeCards()).isTrue();
        assertThat(Ask.computeSlice(1000, 10, 500).sharesOneCard()).isTrue();
        assertThat(new Ask(0, 0, 2, 300, 0, List.of()).sharesOneCard()).isFalse();
    }

    @Test
    void totalMilliIsCardsTimesMilliPerCard() {
        assertThat(Ask.wholeCards(0, 0, 4).totalMilli()).isEqualTo(4000);
        assertThat(new Ask(0, 0, 3, 250, 0, List.of()).totalMilli()).isEqualTo(750);
        assertThat(Ask.cpuOnly(8000, 1).totalMilli()).isZero();
    }

    @Test
    void shareOfACardIsTheLargerOfComputeAndMemory() {
        Card card = Card.of(0, "g0", "T4", 16_000);
        // memory share: ceil(4000 * 1000 / 16000) = 250 > compute 100
        assertThat(new Ask(0, 0, 1, 100, 4000, List.of()).shareOf(card)).isEqualTo(250);
        // memory share: ceil(1000 * 1000 / 16000) = 63 < compute 300
        assertThat(new Ask(0, 0, 1, 300, 1000, List.of()).shareOf(card)).isEqualTo(300);
        assertThat(Ask.wholeCards(0, 0, 1).shareOf(card)).isEqualTo(1000);
    }

    @Test
    void emptyModelListAcceptsEveryModel() {
        assertThat(Ask.computeSlice(0, 0, 10).acceptsModel("G2")).isTrue();
        Ask ask = Ask.computeSlice(0, 0, 10).withModels(List.of("V100M16", "V100M32"));
        assertThat(ask.acceptsModel("V100M32")).isTrue();
        assertThat(ask.acceptsModel("T4")).isFalse();
    }

    @Test
    void rejectsMilliAboveAWholeCardSayingHowToAskForWholeCards() {
        assertThatThrownBy(() -> new Ask(0, 0, 1, 1500, 0, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ask: milliPerCard must be 0..1000, was 1500; ask for 1000 to get whole cards");
    }

    @Test
    void rejectsGpuSharesWithoutCards() {
        assertThatThrownBy(() -> new Ask(0, 0, 0, 500, 0, List.of()))
                .hasMessage("ask: asks 500 milli and 0 MiB per card but 0 cards; set cards to at least 1");
    }

    @Test
    void rejectsCardsWithoutAnyShare() {
        assertThatThrownBy(() -> new Ask(0, 0, 2, 0, 0, List.of()))
                .hasMessage("ask: asks 2 cards but no compute or memory on them; set milliPerCard or memoryMibPerCard");
    }

    @Test
    void rejectsWholeCardsWithMemory() {
        assertThatThrownBy(() -> new Ask(0, 0, 1, 1000, 2048, List.of()))
                .hasMessage("ask: whole cards already include all their memory; drop memoryMibPerCard (2048)"
                        + " or ask for less than 1000 milli");
    }

    @Test
    void rejectsNegativeCpu() {
        assertThatThrownBy(() -> Ask.cpuOnly(-1, 0))
                .hasMessage("ask: cpuMilli and memoryMib must be >= 0, were -1 and 0");
    }

    @Test
    void rejectsBlankModelNames() {
        assertThatThrownBy(() -> Ask.computeSlice(0, 0, 10).withModels(List.of("T4", " ")))
                .hasMessage("ask: models must not contain blank names, were [T4,  ]");
    }
}
