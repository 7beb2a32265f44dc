/**
 * The GPU check ({@code bench/run gpu-isolation}): the node agent's own isolation by MPS and its usage readings on a
 * real GPU, each MPS layout side by side, with CUDA processes in fake pods' cgroups standing for pods. Run on a GPU
 * host ({@code bench/gpu/bundle}, then {@code bench/gpu/run-on-gpu}); CI rehearses the whole check against the node
 * module's stand-ins ({@code GpuIsolationRehearsalIT}).
 */
package io.elasticgpu.bench.gpu;
