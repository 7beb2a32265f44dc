/**
 * Provisioning: every GPU allocation in the cluster as an {@code ElasticGPU} (one per pod, container and card),
 * computed as a pure desired set ({@link io.elasticgpu.controller.provisioning.Desired}), diffed against what
 * exists ({@link io.elasticgpu.controller.provisioning.GpuPlan}) and applied by the running controller, which also
 * writes claim statuses and runs leader election. It must never import the scheduler or node-agent modules.
 */
package io.elasticgpu.controller.provisioning;
