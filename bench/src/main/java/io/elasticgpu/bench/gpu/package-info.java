/**
 * Checks that need a real GPU: the node agent's isolation by MPS and its usage readings, driven with CUDA processes
 * standing for pods. Run on a GPU host only; CI tests the same code against the stand-ins in the node module.
 */
package io.elasticgpu.bench.gpu;
