/**
 * Finds the node's GPUs and watches their events: NVML through {@code java.lang.foreign} on real machines, a YAML
 * file on machines without GPUs. It owns the hardware view only and must never import Kubernetes or gRPC types.
 */
package io.elasticgpu.node.discovery;
