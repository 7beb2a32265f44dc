package io.elasticgpu.node.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Mig;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CardHealthTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-21T10:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final CardHealth health =
            new CardHealth(4, new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)), clock);

    @Test
    void aCriticalXidMakesTheCardUnhealthyAtOnce() {
        assertThat(health.onEvent(new GpuEvent.Xid(2, 79))).isTrue();

        assertThat(health.healthy(2)).isFalse();
        assertThat(health.reason(2)).isEqualTo("Xid 79");
        assertThat(health.healthy(1)).isTrue();
    }

    @Test
    void applicationXidsLeaveTheCardInService() {
        for (long xid : List.of(13L, 31L, 43L, 45L, 68L, 109L)) {
            assertThat(health.onEvent(new GpuEvent.Xid(0, xid)))
                    .as("Xid %d", xid)
                    .isFalse();
        }
        assertThat(health.healthy(0)).isTrue();
    }

    @Test
    void aDoubleBitEccErrorIsCritical() {
        health.onEvent(new GpuEvent.DoubleBitEcc(3));

        assertThat(health.healthy(3)).isFalse();
        assertThat(health.reason(3)).isEqualTo("double-bit ECC error");
    }

    @Test
    void aCardComesBackAfterTheQuietPeriodOnlyIfTheDriverAnswers() {
        health.onEvent(new GpuEvent.Xid(1, 48));
        now.set(now.get().plus(Duration.ofMinutes(4)));
        assertThat(health.recover(card -> true)).as("4 of 5 quiet minutes").isEmpty();

        now.set(now.get().plus(Duration.ofMinutes(1)));
        assertThat(health.recover(card -> false))
                .as("quiet, but NVML does not answer")
                .isEmpty();
        assertThat(health.recover(card -> true)).containsExactly(1);
        assertThat(health.healthy(1)).isTrue();
        assertThat(health.reason(1)).isEmpty();
    }

    @Test
    void aNewErrorRestartsTheQuietPeriod() {
        health.onEvent(new GpuEvent.Xid(0, 79));
        now.set(now.get().plus(Duration.ofMinutes(4)));
        assertThat(health.onEvent(new GpuEvent.Xid(0, 79)))
                .as("already unhealthy: no change")
                .isFalse();
        now.set(now.get().plus(Duration.ofMinutes(4)));

        assertThat(health.recover(card -> true))
                .as("4 minutes since the last error")
                .isEmpty();
    }

    @Test
    void ignoredXidsAreConfigurable() {
        CardHealth strict = new CardHealth(1, new HealthPolicy(Set.of(), Duration.ZERO), clock);

        assertThat(strict.onEvent(new GpuEvent.Xid(0, 13))).isTrue();
    }

    @Test
    void anXidThatEndsRunningWorkIsToldApartFromOneThatOnlyKeepsNewWorkAway() {
        health.onEvent(
                new GpuEvent.Xid(0, 62)); // internal micro-controller halt: critical, running work not known lost
        health.onEvent(new GpuEvent.Xid(1, 79)); // fallen off the bus: everything on it is gone

        assertThat(health.lostWork(0)).isFalse();
        assertThat(health.lostWork(1)).isTrue();
        assertThat(health.onEvent(new GpuEvent.Xid(0, 95)))
                .as("an unhealthy card now losing its work is a change")
                .isTrue();
        assertThat(health.lostWork(0)).isTrue();
    }

    @Test
    void aRecoveredCardHasLostNothing() {
        health.onEvent(new GpuEvent.DoubleBitEcc(2));
        now.set(now.get().plus(Duration.ofMinutes(5)));

        health.recover(c -> true);

        assertThat(health.lostWork(2)).isFalse();
        assertThat(health.onEvent(new GpuEvent.Xid(2, 62))).isTrue();
        assertThat(health.lostWork(2))
                .as("the earlier ECC error does not count for the new outage")
                .isFalse();
    }

    @Test
    void aCardOutOfServiceAsDiscoveredStaysSoThroughEventsAndQuietPeriods() {
        HealthPolicy policy = new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5));
        Gpu pending = new Gpu(
                1, "GPU-1", "NVIDIA H100 80GB HBM3", 81559, "00000000:0F:00.0", 1, 0, new Mig(false, true, List.of()));
        Gpu plain = new Gpu(0, "GPU-0", "NVIDIA H100 80GB HBM3", 81559, "00000000:07:00.0", 0, 0, false);
        CardHealth discovered = CardHealth.of(List.of(plain, pending), policy, clock);

        assertThat(discovered.healthy(0)).isTrue();
        assertThat(discovered.healthy(1)).isFalse();
        assertThat(discovered.reason(1)).startsWith("MIG mode is off and becomes on at the card's next reset");
        discovered.onEvent(new GpuEvent.Xid(1, 79));
        assertThat(discovered.reason(1)).as("what keeps it out longest").startsWith("MIG mode is off");
        now.set(now.get().plus(Duration.ofMinutes(6)));
        assertThat(discovered.recover(card -> true)).as("nothing came back").isEmpty();
        assertThat(discovered.healthy(1)).isFalse();
        assertThat(discovered.reason(1)).startsWith("MIG mode is off");
    }
}
