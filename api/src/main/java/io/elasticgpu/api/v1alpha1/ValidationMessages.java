package io.elasticgpu.api.v1alpha1;

/**
 * What the apiserver answers when an Elastic GPU object breaks one of its CRD's CEL rules ({@code
 * x-kubernetes-validations}). The model classes put these texts into the generated CRDs and tests compare against
 * them, so a rule's wording lives in exactly one place.
 */
public final class ValidationMessages {

    /** {@code ElasticGPUClaim.spec.resources.requests} is {@code {}}. */
    public static final String REQUESTS_EMPTY = "requests must not be empty: ask for elasticgpu.io/gpu (whole cards) "
            + "or elasticgpu.io/gpu-memory and/or elasticgpu.io/gpu-core (a slice of one card)";
    /** A request names a resource Elastic GPU does not provision. */
    public static final String REQUESTS_UNKNOWN_NAME = "requests may only name elasticgpu.io/gpu, "
            + "elasticgpu.io/gpu-memory, elasticgpu.io/gpu-core, elasticgpu.io/gpu-count and elasticgpu.io/gpu-tflops";
    /** A request value is not a whole number of at least 1. */
    public static final String REQUESTS_NOT_POSITIVE =
            "every request must be a whole number of at least 1, " + "e.g. 4096 or \"4096\"";
    /** Whole cards and a slice in one claim. */
    public static final String WHOLE_AND_SLICE = "ask for whole cards or a slice, not both: use elasticgpu.io/gpu "
            + "alone, or elasticgpu.io/gpu-memory and/or elasticgpu.io/gpu-core (with elasticgpu.io/gpu-count for "
            + "several cards)";
    /**
     * Compute above one card; the apiserver's text appends the value, e.g. {@code …, was 150}
     * ({@link #coreAboveOneCard(String)}).
     */
    public static final String CORE_ABOVE_ONE_CARD = "elasticgpu.io/gpu-core is percent of one card and at most 100: "
            + "for more, ask for whole cards with elasticgpu.io/gpu or spread the slice with elasticgpu.io/gpu-count";
    /** {@code gpu-count} without a slice to repeat. */
    /** TFLOPS asked without memory, or with a core share. */
    public static final String TFLOPS_WITH_MEMORY_ALONE = "elasticgpu.io/gpu-tflops asks a slice's compute in TFLOPS:"
            + " ask it with elasticgpu.io/gpu-memory and without elasticgpu.io/gpu-core";

    /**
     * The precisions a claim's {@code spec.tflopsPrecision} may name, as a CEL list; the same as core's
     * {@code Precision} labels (a controller test compares them).
     */
    public static final String TFLOPS_PRECISIONS_CEL = "['fp32', 'tf32', 'fp16', 'bf16', 'int8']";
    /** {@code spec.tflopsPrecision} names no precision; the apiserver's text appends the value ({@code , was fp64}). */
    public static final String TFLOPS_PRECISION_UNKNOWN = "spec.tflopsPrecision is the precision"
            + " elasticgpu.io/gpu-tflops are counted in: one of fp32, tf32, fp16, bf16, int8 (lower case)";
    /** {@code spec.tflopsPrecision} on a claim that asks no TFLOPS. */
    public static final String TFLOPS_PRECISION_WITHOUT_TFLOPS = "spec.tflopsPrecision counts"
            + " elasticgpu.io/gpu-tflops: ask elasticgpu.io/gpu-tflops in spec.resources.requests, or remove it";

    public static final String COUNT_WITHOUT_SLICE = "elasticgpu.io/gpu-count repeats a slice on that many cards: "
            + "add elasticgpu.io/gpu-memory or elasticgpu.io/gpu-core, or ask for whole cards with elasticgpu.io/gpu";
    /** A Bound claim's spec was changed. */
    public static final String CLAIM_SPEC_IMMUTABLE_WHEN_BOUND = "spec cannot change once the claim is Bound: "
            + "create a new claim with the new requests and delete this one";
    /** An ElasticGPU names no source or more than one. */
    public static final String EXACTLY_ONE_SOURCE =
            "set exactly one of source.physical, source.gpuShare and " + "source.qGPU";

    /** The CEL expression that builds {@link #CORE_ABOVE_ONE_CARD} with the value asked for. */
    static final String CORE_ABOVE_ONE_CARD_EXPRESSION =
            "'" + CORE_ABOVE_ONE_CARD + ", was ' + string(self['elasticgpu.io/gpu-core'])";

    /** The CEL expression that builds {@link #TFLOPS_PRECISION_UNKNOWN} with the value given. */
    static final String TFLOPS_PRECISION_UNKNOWN_EXPRESSION = "'" + TFLOPS_PRECISION_UNKNOWN + ", was ' + self";

    /** The full text the apiserver returns for a claim whose {@code spec.tflopsPrecision} is {@code precision}. */
    public static String tflopsPrecisionUnknown(String precision) {
        return TFLOPS_PRECISION_UNKNOWN + ", was " + precision;
    }

    /** The full text the apiserver returns for a claim asking {@code gpuCore} percent of one card. */
    public static String coreAboveOneCard(String gpuCore) {
        return CORE_ABOVE_ONE_CARD + ", was " + gpuCore;
    }

    private ValidationMessages() {}
}
