/**
 * Holding each share to its limits on the node: one CUDA MPS control daemon per share, started, supervised, adopted
 * after an agent restart and ended with the share, and the count of CUDA processes per share enforced. It reads
 * discovery (the cards, NVML's process lists) and never imports allocation, the device plugin or the API client.
 */
package io.elasticgpu.node.isolation;
