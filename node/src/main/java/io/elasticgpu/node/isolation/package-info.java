/**
 * Holding each share to its limits on the node with CUDA MPS, in one of three layouts ({@link
 * io.elasticgpu.node.isolation.ShareServers}: a legacy control daemon per share, one per card, or MPS v3's server per
 * card with a namespace per share): servers started, supervised, adopted after an agent restart and ended with their
 * shares; every limit read back and set again where it changed; process counts, memory and processes around MPS
 * enforced. It reads discovery (the cards, NVML's process lists) and never imports allocation, the device plugin or
 * the API client.
 */
package io.elasticgpu.node.isolation;
