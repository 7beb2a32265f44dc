package io.elasticgpu.node.health;

import io.elasticgpu.node.discovery.GpuEvent;

import java.time.Duration;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Which events make a card unhealthy, and how long a card must stay quiet (and answer the driver) to be healthy
 * again. Immutable.
 *
 * @param ignoredXids Xids caused by applications, not the card: a program's fault must not take the card away
 *                    from everyone else
 * @param quietPeriod how long after its last critical event a card that answers returns to service
 */
public record HealthPolicy(Set<Long> ignoredXids, Duration quietPeriod) {

    /**
     * Application Xids, as NVIDIA's documentation classes them: 13 graphics engine exception, 31 GPU memory page
     * fault, 43 GPU stopped processing (a killed program), 45 preemptive cleanup, 68 video processor exception, 109
     * context switch timeout.
     */
    public static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

    public static final HealthPolicy DEFAULT = new HealthPolicy(APPLICATION_XIDS, Duration.ofMinutes(5));

    public HealthPolicy {
        ignoredXids = Set.copyOf(requireNonNull(ignoredXids, "ignoredXids"));
        requireNonNull(quietPeriod, "quietPeriod");
        if (quietPeriod.isNegative()) {
            throw new IllegalArgumentException("health: quietPeriod must be >= 0, was " + quietPeriod);
        }
    }

    /** Whether {@code event} makes its card unhealthy. */
    public boolean critical(GpuEvent event) {
        return switch (event) {
            case GpuEvent.Xid x -> !ignoredXids.contains(x.code());
            case GpuEvent.DoubleBitEcc e -> true;
        };
    }
}
