package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One card model's peak dense throughput per precision, as its vendor's datasheet states it. Immutable.
 *
 * @param name    the product name NVML reports, e.g. {@code NVIDIA A100-SXM4-80GB}
 * @param aliases other names cards of this model carry (trace names such as {@code V100M32})
 * @param peak    TFLOPS (TOPS for int8) per precision; a precision the card lacks is absent
 * @param source  where the figures come from (the datasheet's address)
 */
public record GpuModel(String name, List<String> aliases, Map<Precision, BigDecimal> peak, String source) {

    public GpuModel {
        requireNonNull(name, "name");
        aliases = List.copyOf(requireNonNull(aliases, "aliases"));
        requireNonNull(source, "source");
        EnumMap<Precision, BigDecimal> copy = new EnumMap<>(Precision.class);
        copy.putAll(requireNonNull(peak, "peak"));
        peak = java.util.Collections.unmodifiableMap(copy);
        if (name.isBlank()) {
            throw new IllegalArgumentException("GPU model: name must not be blank");
        }
        for (var e : peak.entrySet()) {
            if (e.getValue().signum() <= 0) {
                throw new IllegalArgumentException("GPU model %s: peak %s must be > 0, was %s"
                        .formatted(name, e.getKey().label(), e.getValue().toPlainString()));
            }
        }
        if (peak.isEmpty()) {
            throw new IllegalArgumentException("GPU model %s: gives no precision; give at least fp32".formatted(name));
        }
    }

    /**
     * The one form every model name is matched by, wherever a model is looked up: lower case, and each run of spaces,
     * {@code -} and {@code _} (and whatever else a Kubernetes label value cannot hold) one {@code -}, with none at
     * either end. So NVML's {@code NVIDIA A100-SXM4-80GB}, the node label's {@code NVIDIA-A100-SXM4-80GB} and an
     * operator's {@code nvidia_a100_sxm4_80gb} are one model. Pure.
     */
    public static String key(String name) {
        StringBuilder out = new StringBuilder(name.length());
        boolean gap = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isLetterOrDigit(c) || c == '.') {
                if (gap && !out.isEmpty()) {
                    out.append('-');
                }
                gap = false;
                out.append(Character.toLowerCase(c));
            } else {
                gap = true;
            }
        }
        return out.toString();
    }

    public Optional<BigDecimal> peak(Precision precision) {
        return Optional.ofNullable(peak.get(precision));
    }
}
