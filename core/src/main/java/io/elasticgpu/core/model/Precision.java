package io.elasticgpu.core.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The number formats a card's peak throughput is quoted in, dense (without sparsity), as datasheets list them. */
public enum Precision {
    FP32,
    TF32,
    FP16,
    BF16,
    /** Tera-operations rather than floating-point operations; the table and asks count them the same way. */
    INT8;

    /** The precision an ask in TFLOPS means when it names none. */
    public static final Precision DEFAULT = BF16;

    /** The lower-case name asks and the model table use, e.g. {@code bf16}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming the known precisions when {@code text} is none of them
     */
    public static Precision parse(String text) {
        for (Precision p : values()) {
            if (p.label().equals(text == null ? "" : text.strip().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("precision \"%s\" is not one of %s".formatted(text, known()));
    }

    /** {@code fp32, tf32, fp16, bf16, int8}. */
    public static String known() {
        return Arrays.stream(values()).map(Precision::label).collect(Collectors.joining(", "));
    }
}
