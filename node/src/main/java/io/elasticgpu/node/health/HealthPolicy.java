package io.elasticgpu.node.health;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.node.discovery.GpuEvent;
import java.time.Duration;
import java.util.Set;

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

    /**
     * Critical Xids after which work already running on the card is lost, not only new work at risk: 48 double-bit
     * ECC error, 74 NVLink error, 79 fallen off the bus, 94 and 95 contained and uncontained ECC errors (the driver
     * kills the processes using the affected memory), 119 and 120 GSP errors (the firmware stopped answering).
     */
    public static final Set<Long> WORK_LOSING_XIDS = Set.of(48L, 74L, 79L, 94L, 95L, 119L, 120L);

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

    /**
     * Whether a critical {@code event} also ends the work running on its card, so that its users should be moved
     * (a DRA {@code NoExecute} taint) rather than only kept from new work ({@code NoSchedule}).
     */
    public boolean losesWork(GpuEvent event) {
        return critical(event)
                && switch (event) {
                    case GpuEvent.Xid x -> WORK_LOSING_XIDS.contains(x.code());
                    case GpuEvent.DoubleBitEcc e -> true;
                };
    }
}
