/**
 * What is possible for one arrival order: an upper bound on the GPU any placement can allocate (a linear program
 * solved with ojAlgo), an offline packing that reaches a lower bound, and an independent check that the packing is
 * feasible. It computes numbers and must never format output.
 */
package io.elasticgpu.simulator.bound;
