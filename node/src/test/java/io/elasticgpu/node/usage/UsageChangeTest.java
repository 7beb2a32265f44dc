package io.elasticgpu.node.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UsageChangeTest {

    private static NodeUsage usage(long memoryMib, int sm, int processes) {
        return new NodeUsage(
                "2026-11-27T10:00:00Z",
                List.of(new ContainerUsage("a", "p", "c", 0, memoryMib, sm, processes)),
                List.of());
    }

    @ParameterizedTest(name = "{0} MiB {1}% {2} proc -> {3} MiB {4}% {5} proc: write {6}")
    @CsvSource({
        // 20,480 -> 20,700: 220 MiB, under 256 MiB and under 5 % (1,024): the same
        "20480, 40, 1, 20700, 40, 1, false",
        // 20,480 -> 20,740: 260 MiB >= 256: written
        "20480, 40, 1, 20740, 40, 1, true",
        // 1,000 -> 1,060: 60 MiB, but over 5 % of 1,060 (53): written
        "1000, 40, 1, 1060, 40, 1, true",
        // SM 40 -> 49: 9 points: the same; 40 -> 50: written
        "20480, 40, 1, 20480, 49, 1, false",
        "20480, 40, 1, 20480, 50, 1, true",
        // SM becomes known
        "20480, -1, 1, 20480, 3, 1, true",
        // a process more
        "20480, 40, 1, 20480, 40, 2, true",
    })
    void onlyAChangeAPersonWouldNoticeIsWritten(long m1, int s1, int p1, long m2, int s2, int p2, boolean write) {
        assertThat(UsageChange.worthWriting(usage(m1, s1, p1), usage(m2, s2, p2), Duration.ofSeconds(10)))
                .isEqualTo(write);
    }

    @Test
    void theFirstMeasurementANewContainerAndAStaleOneAreWritten() {
        NodeUsage one = usage(100, 1, 1);
        assertThat(UsageChange.worthWriting(null, one, Duration.ZERO)).isTrue();
        assertThat(UsageChange.worthWriting(new NodeUsage("t", List.of(), List.of()), one, Duration.ZERO))
                .isTrue();
        assertThat(UsageChange.worthWriting(one, one, Duration.ofMinutes(5))).isTrue();
        assertThat(UsageChange.worthWriting(one, one, Duration.ofMinutes(4))).isFalse();
    }
}
