package io.elasticgpu.core.snapshot;

/**
 * Why a request does or does not fit a node. A closed set that tests and callers compare against; {@link #FITS} is
 * the one success value.
 */
public enum Reason {
    FITS,
    TOO_MANY_PODS,
    INSUFFICIENT_CPU,
    INSUFFICIENT_MEMORY,
    NO_GPU,
    MODEL_NOT_ACCEPTED,
    NO_HEALTHY_GPU,
    INSUFFICIENT_GPU
}
