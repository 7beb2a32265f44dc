package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A card's MIG mode, now and after its next reset, and the MIG devices on it. Immutable.
 *
 * @param enabled MIG mode is on now
 * @param pending MIG mode is on after the card's next reset (the same as {@code enabled} unless a change waits)
 * @param devices the MIG devices NVML lists, by their index on the card; none when MIG is off
 */
public record Mig(boolean enabled, boolean pending, List<MigDevice> devices) {

    /** A card in whole-card mode, or one that cannot do MIG. */
    public static final Mig OFF = new Mig(false, false, List.of());

    public Mig {
        devices = List.copyOf(requireNonNull(devices, "devices"));
        if (!enabled && !devices.isEmpty()) {
            throw new IllegalArgumentException("MIG devices listed on a card with MIG mode off: " + devices);
        }
    }

    /**
     * Why the card is not served, or empty when it is: a card whose MIG mode changes at its next reset serves
     * nothing safely until then, and one in MIG mode cannot be given whole or in shares (its work runs on MIG
     * devices, which the agent does not serve yet).
     */
    public Optional<String> outOfService() {
        if (enabled != pending) {
            return Optional.of(("MIG mode is %s and becomes %s at the card's next reset (nvidia-smi -r, or a reboot);"
                            + " until then it serves nothing")
                    .formatted(enabled ? "on" : "off", pending ? "on" : "off"));
        }
        if (enabled) {
            return Optional.of(
                    devices.isEmpty()
                            ? "MIG mode is on and the card has no MIG devices; it is not served whole or in shares"
                            : "MIG mode is on (MIG devices %s); it is not served whole or in shares"
                                    .formatted(devices.stream()
                                            .map(MigDevice::profile)
                                            .collect(Collectors.joining(", "))));
        }
        return Optional.empty();
    }
}
