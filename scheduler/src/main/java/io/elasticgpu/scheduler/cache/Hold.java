package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.PodGrant;

/**
 * A filter's decision for one pod: the cards chosen (null for a pod without GPUs, which kube-scheduler binds
 * itself), counted until a bind confirms them, the pod is seen bound, or the hold lapses.
 */
public record Hold(PodGrant allocation, long expiresAtNanos) {}
