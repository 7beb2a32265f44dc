package io.elasticgpu.node.discovery;

/**
 * {@code nvmlComputeMode_t}: who may create CUDA contexts on a card, as {@code nvidia-smi -c} sets it. The constants
 * are in {@code nvml.h}'s order, so a constant's {@link #ordinal()} is its NVML value.
 */
public enum ComputeMode {
    /** 0: any number of contexts from any processes. */
    DEFAULT,
    /** 1: one context used by one thread; drivers no longer support it, but a card can still report it. */
    EXCLUSIVE_THREAD,
    /** 2: no contexts at all. */
    PROHIBITED,
    /**
     * 3: one context, usable from several threads of one process; NVIDIA's advice for a card with one MPS server,
     * which rules out several MPS servers on one card.
     */
    EXCLUSIVE_PROCESS
}
